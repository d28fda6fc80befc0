/**
 * The validated, defaulted, frozen configuration (design.md, "Targets and configuration").
 * Produced once by `config/load.ts` and passed in; nothing else reads `process.env`.
 */
import type { Variant } from './kinds.js';

/** A reference to a secret: an env var, a file, or (discouraged, `plan` warns) a plain string. */
export type SecretRef = { fromEnv: string } | { fromFile: string } | string;

export interface RateLimit {
  requests: number;
  perSeconds: number;
  concurrency: number;
}

export interface ManagedAuth { keyId: SecretRef; keySecret: SecretRef }
export interface SelfHostedAuth { token: SecretRef }

interface TargetBase {
  name: string;
  baseUrl: string;
  rateLimit: RateLimit;
}
export interface ManagedTarget extends TargetBase {
  variant: 'managed';
  organizationId: string;
  serviceId: string;
  auth: ManagedAuth;
}
export interface SelfHostedTarget extends TargetBase {
  variant: 'self-hosted';
  auth: SelfHostedAuth;
}
export type Target = ManagedTarget | SelfHostedTarget;

export interface SyncSettings {
  /** Periodic resync, milliseconds (config: `5m` style). */
  intervalMs: number;
  drift: 'heal' | 'report';
  prune: boolean;
  maxDeletes: number;
  maxDeletePercent: number;
  adopt: boolean;
}

export interface Config {
  /** Absolute path of the file this came from; undefined for the embedded default. */
  file?: string;
  targets: Target[];
  defaultTarget: string;
  sync: SyncSettings;
  /** State file path, resolved against the working directory. */
  state: string;
}

/** Credentials after resolving the secret references; held in memory only. */
export type Credentials =
  | { variant: 'managed'; keyId: string; keySecret: string }
  | { variant: 'self-hosted'; token: string };

/** What a client needs to talk to one target. */
export interface TargetConnection {
  name: string;
  variant: Variant;
  baseUrl: string;
  organizationId?: string;
  serviceId?: string;
  credentials: Credentials;
  rateLimit: RateLimit;
}
