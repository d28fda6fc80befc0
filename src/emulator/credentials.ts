/**
 * Salted hashes of key secrets and tokens. A hash is HMAC-SHA-256, keyed by a random salt, of
 * the secret's SHA-256: the salt is made once per fresh state (kept in the data file beside the
 * state, never in a dump), so a dump cannot be checked against guessed secrets, and a data file
 * written before salting (plain SHA-256) can be upgraded without knowing the secrets.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

const SALT_BYTES = 32;
export const SALT_PATTERN = `^[0-9a-f]{${SALT_BYTES * 2}}$`;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class CredentialHasher {
  private constructor(private readonly salt: Buffer) {}

  /** A hasher with a new random salt. */
  static fresh(): CredentialHasher {
    return new CredentialHasher(randomBytes(SALT_BYTES));
  }

  /** The hasher of a saved salt (hex, as `saltHex()` gives it). */
  static fromSalt(hex: string): CredentialHasher {
    return new CredentialHasher(Buffer.from(hex, 'hex'));
  }

  /** The salt to save beside the state, so its hashes stay valid after a restart. */
  saltHex(): string {
    return this.salt.toString('hex');
  }

  /** The salted hash of a secret or token, hex. */
  hash(secret: string): string {
    return this.fromSha256(sha256Hex(secret));
  }

  /** The salted hash of a secret known only by its plain SHA-256 (a data file from before salting). */
  fromSha256(secretSha256: string): string {
    return createHmac('sha256', this.salt).update(secretSha256).digest('hex');
  }
}
