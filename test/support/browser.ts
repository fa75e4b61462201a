/**
 * Headless Chromium for browser tests (puppeteer-core over Debian's `chromium`, which .ci/run
 * installs when missing; `CHROMIUM_PATH` names another binary).
 */
import { execFileSync } from 'node:child_process';
import puppeteer, { type Browser } from 'puppeteer-core';

const LAUNCH_TIMEOUT_MS = 30_000;

/** CHROMIUM_PATH, else `chromium` (or `chromium-browser`) on the PATH; a clear failure otherwise. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'Chromium is not installed: this test needs it (apt-get install -y chromium; .ci/run installs it) or CHROMIUM_PATH set to a Chrome/Chromium binary',
    );
  }
}

/** Launches headless Chromium, giving up with a clear message after LAUNCH_TIMEOUT_MS. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  let timer: NodeJS.Timeout | undefined;
  const launching = puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--font-render-hinting=none',
      '--force-color-profile=srgb',
      '--disable-partial-raster',
      '--disable-lcd-text',
    ],
    timeout: LAUNCH_TIMEOUT_MS,
    protocolTimeout: LAUNCH_TIMEOUT_MS,
  });
  const giveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Chromium (${executablePath}) did not start within ${LAUNCH_TIMEOUT_MS / 1000} s`)),
      LAUNCH_TIMEOUT_MS + 2_000,
    );
  });
  try {
    return await Promise.race([launching, giveUp]);
  } catch (error) {
    // A launch that finishes after we gave up must not leave a browser behind.
    void launching.then((late) => late.close()).catch(() => undefined);
    throw new Error(`could not launch Chromium at ${executablePath}: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a browser, killing its process if it does not close. */
export async function closeChromium(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const child = browser.process();
  await browser.close().catch(() => child?.kill('SIGKILL'));
}
