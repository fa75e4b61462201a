/**
 * The engine relies on dynalite's private parts (its key layout, `db/index.js` helpers, the shape of
 * its actions: see dynalite-internals.ts and staging-store.ts), which any release may change. So it
 * refuses to start unless the installed dynalite is exactly the version package.json pins. Both
 * versions are read at run time, from node_modules/dynalite/package.json and from the engine's
 * package.json.
 */
import { createRequire } from 'node:module';

/** Why the installed dynalite may not be used, or undefined when it is the pinned version. */
export function dynaliteVersionProblem(installed: string | undefined, pinned: string | undefined): string | undefined {
  if (pinned === undefined) return 'package.json does not list dynalite among its dependencies';
  if (!/^\d+\.\d+\.\d+$/.test(pinned)) {
    return `package.json must pin dynalite to an exact version (found "${pinned}"): the engine relies on its private key layout`;
  }
  if (installed === pinned) return undefined;
  return (
    `node_modules/dynalite is version ${installed ?? '(unknown)'}, but package.json pins ${pinned}; ` +
    'the engine relies on dynalite internals of that exact version. Run `npm ci` to install it.'
  );
}

/** Throws (with dynaliteVersionProblem's message) unless the installed dynalite is the pinned one. */
export function assertDynaliteVersion(): void {
  const require = createRequire(import.meta.url);
  const installed = (require('dynalite/package.json') as { version?: string }).version;
  // By name, not by a path beside this module: the same answer when a server bundles the engine (src/ops/bundle.ts).
  const manifest = require('@single-table/engine/package.json') as { dependencies?: Record<string, string> };
  const problem = dynaliteVersionProblem(installed, manifest.dependencies?.dynalite);
  if (problem) throw new Error(`Refusing to start the engine: ${problem}`);
}
