/**
 * `run --leader-elect` on the Kubernetes state (test/helpers/leader-election.ts): the fake API
 * server (test/helpers/fake-kube.ts) runs in this process for the whole scenario, and the daemons,
 * separate processes, reach it through a kubeconfig file. The lock is a Lease, so after kill -9
 * the standby takes over once the Lease went unrenewed for its duration (docs/daemon.md, "Two
 * replicas, one writer"): a short `--lease-duration` keeps that within the 30 s the scenario allows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLeaderElection } from '../helpers/leader-election.js';
import { startFakeKube, type FakeKube } from '../helpers/fake-kube.js';

const NS = 'stacksync';
let kube: FakeKube | undefined;
let dir: string | undefined;

describeLeaderElection(
  'Kubernetes',
  async () => {
    kube = await startFakeKube({ namespaces: [NS] });
    dir = await mkdtemp(join(tmpdir(), 'stacksync-kube-'));
    const kubeconfig = await kube.writeKubeconfig(join(dir, 'kubeconfig'));
    return {
      block: `{ backend: kubernetes, namespace: ${NS}, name: elected, kubeconfig: ${JSON.stringify(kubeconfig)} }`,
      leaseDuration: '3s',
    };
  },
  async () => {
    await kube?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  },
);
