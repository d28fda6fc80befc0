/**
 * The key a saved plan is made under when the state has no key yet: the first pull request of a
 * new repository, planned before anything was ever applied.
 *
 * A saved plan's HMACs (its key check, the digest of each planned write and of each secret, and
 * the seal over the whole file) are normally made under the state key (`state.key`): whoever edits
 * the plan file without that key can neither forge them nor learn a secret from them. Before the
 * first apply there is no state key, and `plan` writes nothing, so it cannot make one. The key is
 * then derived for the plan: scrypt over the resolved credentials of the planned targets, salted
 * with 16 random bytes that the plan carries (`saved.keySalt`). Both jobs of a pull request hold
 * those credentials (plan reads the live state with them); a person or a workflow that only
 * handles the plan file does not. The first `apply --plan` derives the key again from the salt and
 * its own credentials, checks it against the plan's key check before it writes anything, and then
 * creates the state key with it: the plan's digests and everything that apply records are under
 * one key, as they are for any later plan.
 *
 * What someone who can edit the plan file (but holds neither the credentials nor a state key)
 * can do, and what stops them:
 * - Change any member (the request, a target, a planned write, its order, its secrets): the seal
 *   no longer matches, and forging one needs the key. Refused (`E_PLAN_INVALID`).
 * - Cut the file short, or drop planned writes from it to get a part of the plan applied: the same
 *   seal covers every member, so a shorter plan is a changed plan. Refused.
 * - Replace the salt (and everything else) with their own: the key derived from the new salt does
 *   not give the plan's key check, and a key check of their own needs the credentials. Refused,
 *   before the state key is created.
 * - Replay the plan after the state got its key (from this plan or another): a plan made without a
 *   key is checked against the state key once there is one, and only the key made from this very
 *   plan passes; a plan applied already then fails the usual checks (its writes are done), and one
 *   whose first apply wrote nothing (it failed) may run again, which is the point of a retry.
 * - Bring a plan made for another repository, state or config: the targets' endpoints and every
 *   manifest are digested in it, so it does not match what this apply plans. Refused.
 * - Read it: the key check and the digests are HMACs under a key they cannot derive without the
 *   credentials, so they tell nothing about a secret. They are an offline oracle for guessing the
 *   credentials themselves, which is why the derivation is scrypt (2^15 × 8: some 32 MiB and a
 *   quarter of a second per guess) and not a plain hash; API keys and tokens are long random
 *   strings, out of reach of guessing either way.
 * What remains: the state key of a state born this way can be derived by whoever holds both the
 * credentials and this plan file. Such a person can already read and write every resource through
 * the API; what the state key protects from them is only the HMAC of the write-only pipe
 * credentials, and those are in the same CI secrets as the API credentials.
 * When plan and apply are given different credentials (a read-only key for pull requests), the
 * first plan cannot be checked: apply refuses it, saying so, and a plan made after the first apply
 * is checked under the state key as usual.
 */
import { randomBytes, scrypt } from 'node:crypto';
import { resolveCredentials, type SecretIo } from '../config/secrets.js';
import type { Config } from '../model/config.js';
import { HMAC_KEY_BYTES } from '../state/hmac.js';
import { canonicalJson } from '../support/digest.js';

/** Bytes of the salt a plan carries. */
export const PLAN_KEY_SALT_BYTES = 16;

/** scrypt's cost: N = 2^15, r = 8 (32 MiB), p = 1, the usual choice for an interactive login. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

/** What the derivation is for, so that the same credentials give other keys elsewhere. */
const PURPOSE = 'stacksync saved plan key, made before the state had one';

/** A fresh salt, as the plan file carries it (hex). */
export function newPlanKeySalt(): string {
  return randomBytes(PLAN_KEY_SALT_BYTES).toString('hex');
}

/**
 * The plan's key: scrypt over the planned targets' resolved credentials (by name, so order does
 * not matter), salted with `salt`.
 * @throws StacksyncError `E_SECRET_MISSING` when a target's credentials do not resolve.
 */
export async function planKeyFrom(
  config: Config,
  targets: readonly string[],
  io: Partial<SecretIo>,
  salt: string,
): Promise<Buffer> {
  const names = [...new Set(targets)].sort();
  const credentials = config.targets
    .filter((target) => names.includes(target.name))
    .map((target) => [target.name, resolveCredentials(target, io)]);
  const material = canonicalJson({ purpose: PURPOSE, credentials });
  return new Promise((resolve, reject) => {
    scrypt(material, Buffer.from(salt, 'hex'), HMAC_KEY_BYTES, SCRYPT, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}
