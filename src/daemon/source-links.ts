/**
 * Where each resource's manifest is, as people look for it: its path in the repository (relative
 * to the checkout's top level, which moves with every git-sync revision) and, when
 * `daemon.repositoryUrl` is set, a link to its line at the revision the target last synced.
 * Added to the served `/status` document, so the page and `stacksync status` show the same.
 */
import { dirname, resolve } from 'node:path';
import { gitTopLevel, repoPath } from '../support/git.js';
import type { ResourceStatusEntry, StatusDocument, TargetStatus } from './status.js';

export interface SourceLinkOptions {
  /** Prefix of links; `{revision}` stands for the synced commit (`HEAD` when it is not known). */
  repositoryUrl?: string;
  /** Finds a directory's repository top level; default: looks for `.git` upwards. */
  topLevel?: (dir: string) => string | undefined;
  /** Paths outside any repository are shown relative to this directory, when under it (default the working directory). */
  cwd?: string;
}

/** Directories whose top level is remembered; a daemon sees a new checkout directory per revision. */
const REMEMBERED_DIRS = 10_000;

/** A function that adds `path` (and `url`) to every resource of a document that has a manifest. */
export function createSourceLinker(options: SourceLinkOptions = {}): (document: StatusDocument) => StatusDocument {
  const topLevel = options.topLevel ?? gitTopLevel;
  const cwd = options.cwd ?? process.cwd();
  const tops = new Map<string, string | undefined>();
  const topOf = (dir: string): string | undefined => {
    if (!tops.has(dir)) {
      if (tops.size >= REMEMBERED_DIRS) tops.clear();
      tops.set(dir, topLevel(dir));
    }
    return tops.get(dir);
  };
  const link = (resource: ResourceStatusEntry, revision: string | undefined): ResourceStatusEntry => {
    if (resource.file === undefined) return resource;
    const absolute = resolve(resource.file);
    const path = repoPath(topOf(dirname(absolute)) ?? cwd, absolute, resource.file);
    const url =
      options.repositoryUrl === undefined ? undefined : lineUrl(options.repositoryUrl, revision, path, resource.line);
    return { ...resource, path, ...(url === undefined ? {} : { url }) };
  };
  const linkTarget = (status: TargetStatus): TargetStatus => ({
    ...status,
    resources: status.resources.map((resource) => link(resource, status.revision)),
  });
  return (document) => ({
    ...document,
    targets: Object.fromEntries(Object.entries(document.targets).map(([name, status]) => [name, linkTarget(status)])),
  });
}

/** `<repositoryUrl with the revision><path>#L<line>`, the path's unsafe characters escaped. */
export function lineUrl(
  repositoryUrl: string,
  revision: string | undefined,
  path: string,
  line: number | undefined,
): string {
  const base = repositoryUrl.replaceAll('{revision}', encodeURIComponent(revision ?? 'HEAD'));
  const slash = base.endsWith('/') ? '' : '/';
  const encoded = encodeURI(path).replace(/[()#?]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${base}${slash}${encoded}${line === undefined ? '' : `#L${line}`}`;
}
