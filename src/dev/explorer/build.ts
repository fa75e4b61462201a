/**
 * The explorer's bundle: the page under src/dev/explorer/page (GraphiQL, React and the Table view, all
 * from node_modules, nothing from a CDN) built by esbuild into one `explorer.js` and one
 * `explorer.css` in `node_modules/.cache/explorer/`: a build output, so under node_modules, where
 * git, Prettier and ESLint already look away (a 1.3 MB minified bundle is nobody's source).
 *
 * Development only. esbuild is a devDependency, imported on first use (never by a production
 * process, and through a non-literal specifier so the Lambda bundle, which includes server.ts, does
 * not try to bundle esbuild). `ensureExplorerBundle` builds when the bundle is missing or older
 * than any page source, so the first page load of `npm start` builds it (well under a second) and
 * an edited page is rebuilt on the next load; `npm run explorer:build` builds it ahead of time.
 *
 * Several processes may build at once (parallel test files): each writes its files under a
 * temporary name and renames them into place, so a reader never sees half a bundle.
 */
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the bundle goes, and where its sources are. */
export const EXPLORER_DIR = fileURLToPath(new URL('../../../node_modules/.cache/explorer/', import.meta.url));
export const PAGE_SOURCES = fileURLToPath(new URL('./page/', import.meta.url));
export const BUNDLE_FILES = { js: 'explorer.js', css: 'explorer.css' } as const;

/** esbuild's API, as much of it as this module uses. */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ path: string; contents: Uint8Array }> }>;
}

/** Builds the bundle into `outDir` (default `EXPLORER_DIR`); returns the files written. */
export async function buildExplorer(outDir = EXPLORER_DIR): Promise<string[]> {
  const specifier = 'esbuild';
  const esbuild = (await import(specifier)) as Esbuild;
  const result = await esbuild.build({
    // The script and the stylesheet (GraphiQL's CSS @imported from its package, then the page's).
    entryPoints: [
      { in: join(PAGE_SOURCES, 'main.ts'), out: 'explorer' },
      { in: join(PAGE_SOURCES, 'explorer.css'), out: 'explorer' },
    ],
    bundle: true,
    write: false,
    outdir: outDir,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    // React's production build; GraphiQL's fonts are inlined by its own CSS (data: URLs).
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  // CSS first, then JS: a reader that sees the new JS finds its CSS already in place.
  const files = [...result.outputFiles].sort((a, b) => (a.path.endsWith('.css') ? -1 : b.path.endsWith('.css') ? 1 : 0));
  for (const file of files) {
    const target = join(outDir, basename(file.path));
    const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, target);
    written.push(target);
  }
  return written;
}

/** Whether the bundle in `outDir` is missing or older than a page source. */
export function explorerBundleStale(outDir = EXPLORER_DIR): boolean {
  let built = Infinity;
  for (const name of Object.values(BUNDLE_FILES)) {
    try {
      built = Math.min(built, statSync(join(outDir, name)).mtimeMs);
    } catch {
      return true;
    }
  }
  return newestSource(PAGE_SOURCES) > built;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let building: Promise<void> | undefined;

/** Builds the bundle when it is stale; concurrent callers of one process share one build. */
export function ensureExplorerBundle(outDir = EXPLORER_DIR): Promise<void> {
  if (!explorerBundleStale(outDir)) return Promise.resolve();
  building ??= buildExplorer(outDir)
    .then(() => undefined)
    .finally(() => {
      building = undefined;
    });
  return building;
}
