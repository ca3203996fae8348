// Drives a code-server workbench in Debian's Chromium through playwright-core, the way a
// person would: the command palette, input boxes, the status bar, notifications, the
// integrated terminal and tree views. Every wait is explicit and named; a failed wait saves
// a screenshot and says what was on screen.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { repoRoot } from './codeServer.ts';
import type { CodeServer } from './codeServer.ts';

export const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function artifactsDir(): string {
  return process.env.LEASEHOLD_E2E_ARTIFACTS ?? path.join(repoRoot, 'test-artifacts', 'e2e');
}

export interface WorkbenchOptions {
  /** Chromium binary; default $LEASEHOLD_E2E_CHROMIUM, then /usr/bin/chromium. */
  executablePath?: string;
  /** Default true; LEASEHOLD_E2E_HEADED=1 shows the window where a display exists. */
  headless?: boolean;
  viewport?: { width: number; height: number };
  /** Folder to open; default the server's workspace. */
  folder?: string;
  /** Default wait for each helper (ms). */
  timeoutMs?: number;
  /** How long to wait for the workbench to render (ms, default 60 s). */
  loadTimeoutMs?: number;
}

export type Match = string | RegExp;

function describeMatch(match: Match): string {
  return typeof match === 'string' ? JSON.stringify(match) : String(match);
}

function matches(text: string, match: Match): boolean {
  return typeof match === 'string' ? text.includes(match) : match.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fileSafe(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'scenario';
}

export class Workbench {
  readonly page: Page;
  readonly browser: Browser;
  readonly server: CodeServer;
  /** Milliseconds from navigation to the workbench's status bar rendering. */
  readonly loadMs: number;
  readonly timeoutMs: number;
  /** The page's console errors and warnings, for failure reports. */
  readonly consoleMessages: string[];

  constructor(browser: Browser, page: Page, server: CodeServer, loadMs: number, timeoutMs: number, consoleMessages: string[]) {
    this.browser = browser;
    this.page = page;
    this.server = server;
    this.loadMs = loadMs;
    this.timeoutMs = timeoutMs;
    this.consoleMessages = consoleMessages;
  }

  /** Runs one UI step; on failure saves `failure-<step>.png` and names it in the error. */
  async step<T>(description: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      const shot = await this.screenshot(`failure-${description}`).catch(() => undefined);
      const state = await this.describeScreen().catch(() => '');
      const cause = error instanceof Error ? error.message.split('\n').slice(0, 6).join('\n') : String(error);
      throw new Error(
        `e2e step failed: ${description}\n  ${cause}${shot ? `\n  screenshot: ${shot}` : ''}${state ? `\n  on screen:\n${state}` : ''}`,
        { cause: error },
      );
    }
  }

  /** What a reader of a failure wants to know: open quick input, toasts, status bar. */
  async describeScreen(): Promise<string> {
    const lines: string[] = [];
    const quickInput = this.page.locator('.quick-input-widget');
    if (await quickInput.isVisible()) lines.push(`    quick input: ${(await quickInput.innerText()).replace(/\s+/g, ' ').slice(0, 300)}`);
    for (const toast of await this.page.locator('.notification-toast .notification-list-item-message').allInnerTexts()) {
      lines.push(`    notification: ${toast.trim()}`);
    }
    const items = await this.page.locator('.statusbar-item').evaluateAll((els) =>
      els.map((el) => `${el.id}=${JSON.stringify((el as unknown as { innerText: string }).innerText.trim())}`).filter((s) => !s.endsWith('=""')),
    );
    lines.push(`    status bar: ${items.join(' | ')}`);
    return lines.join('\n');
  }

  /** Saves a screenshot to test-artifacts/e2e/<scenario>.png and returns its path. */
  async screenshot(scenario: string): Promise<string> {
    const file = path.join(artifactsDir(), `${fileSafe(scenario)}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Waits until fn() returns a truthy value; polls, so it suits text that changes. */
  async waitFor<T>(description: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = this.timeoutMs): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await fn();
        if (value) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // --- command palette and input boxes ------------------------------------------------

  private quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  private quickInputField(): Locator {
    return this.quickInput().locator('.quick-input-box input');
  }

  /** Opens the palette (Control+Shift+P), types the command's title, runs it with Enter. */
  async runCommand(title: string): Promise<void> {
    await this.step(`run command ${title}`, async () => {
      await this.focusWorkbench();
      await this.page.keyboard.press('Control+Shift+P');
      await this.quickInputField().waitFor({ state: 'visible', timeout: this.timeoutMs });
      await this.quickInputField().fill(`>${title}`);
      // The palette lists `Category: Title`; pick the row whose label ends with the title.
      const row = this.quickInput()
        .locator('.monaco-list-row')
        .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`(^|: )${escapeRegExp(title)}$`) }) })
        .first();
      await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
      await row.click();
      await this.waitFor(`the palette to run ${JSON.stringify(title)} and close`, async () => {
        const value = (await this.quickInputField().isVisible()) ? await this.quickInputField().inputValue() : '';
        return !value.startsWith('>');
      });
    });
  }

  /** Waits for an input box (showInputBox / QuickPick) to be open. */
  async waitForInputBox(): Promise<void> {
    await this.step('wait for an input box', () => this.quickInputField().waitFor({ state: 'visible', timeout: this.timeoutMs }));
  }

  /**
   * Replaces the open input box's text and returns its inline validation message after the
   * extension's validateInput ran ('' when the value is accepted).
   */
  async typeIntoInputBox(text: string): Promise<string> {
    return this.step(`type ${JSON.stringify(text)} into the input box`, async () => {
      await this.quickInputField().waitFor({ state: 'visible', timeout: this.timeoutMs });
      await this.quickInputField().fill(text);
      // validateInput is async across the extension-host boundary; give it a moment to settle.
      await this.page.waitForTimeout(300);
      return this.inputValidationMessage();
    });
  }

  /** The open input box's current validation message ('' when none). */
  async inputValidationMessage(): Promise<string> {
    const widget = this.quickInput();
    const inputBox = widget.locator('.quick-input-box .monaco-inputbox');
    const severe = await inputBox.evaluate((el) => /\b(error|warning|info)\b/.test(el.className)).catch(() => false);
    if (!severe) return '';
    const message = widget.locator('.quick-input-message');
    return (await message.isVisible()) ? (await message.innerText()).trim() : '';
  }

  /** Waits for the input box's validation message to match. */
  async waitForInputValidation(match: Match): Promise<string> {
    return this.step(`input box validation ${describeMatch(match)}`, () =>
      this.waitFor(`validation message ${describeMatch(match)}`, async () => {
        const message = await this.inputValidationMessage();
        return matches(message, match) ? { message } : undefined;
      }),
    ).then(({ message }) => message);
  }

  /** Presses Enter in the open input box. */
  async submitInputBox(): Promise<void> {
    await this.step('submit the input box', async () => {
      await this.quickInputField().press('Enter');
    });
  }

  /** Picks an item of an open QuickPick by its label. */
  async pickQuickPickItem(label: Match): Promise<void> {
    await this.step(`pick ${describeMatch(label)}`, async () => {
      const row = this.quickInput().locator('.monaco-list-row').filter({ hasText: label }).first();
      await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
      await row.click();
    });
  }

  async closeQuickInput(): Promise<void> {
    if (await this.quickInput().isVisible()) await this.page.keyboard.press('Escape');
  }

  // --- status bar and notifications ------------------------------------------------------

  /**
   * A status bar item. `id` is the DOM id VS Code gives it: `<extension id>.<item id>` for an
   * item made with createStatusBarItem(id, ...) (e.g. `leasehold.leasehold.status`), or a
   * built-in id like `status.problems`. `text` matches its visible text.
   */
  statusBarItem(by: { id?: string; text?: Match }): Locator {
    let item = this.page.locator('.part.statusbar .statusbar-item');
    if (by.id) item = this.page.locator(`.part.statusbar .statusbar-item[id="${by.id.replace(/"/g, '\\"')}"]`);
    if (by.text) item = item.filter({ hasText: by.text });
    return item.first();
  }

  /** Waits for the status bar item to be shown (and to match `match`), returns its text. */
  async waitForStatusBarText(by: { id?: string; text?: Match }, match?: Match): Promise<string> {
    const what = `status bar item ${by.id ?? ''}${by.text ? ` with ${describeMatch(by.text)}` : ''}${match ? ` showing ${describeMatch(match)}` : ''}`;
    return this.step(what, () =>
      this.waitFor(what, async () => {
        const item = this.statusBarItem(by);
        if (!(await item.isVisible())) return undefined;
        const text = (await item.innerText()).trim();
        return match === undefined || matches(text, match) ? { text } : undefined;
      }),
    ).then(({ text }) => text);
  }

  /** The status bar item's text now ('' when it is not shown). */
  async statusBarText(by: { id?: string; text?: Match }): Promise<string> {
    const item = this.statusBarItem(by);
    return (await item.isVisible()) ? (await item.innerText()).trim() : '';
  }

  /** The status bar item's tooltip/aria label (VS Code puts `text, tooltip` in aria-label). */
  async statusBarAriaLabel(by: { id?: string; text?: Match }): Promise<string> {
    return (await this.statusBarItem(by).getAttribute('aria-label')) ?? '';
  }

  /** Waits for a notification toast whose message matches; returns the message. */
  async waitForNotification(match: Match): Promise<string> {
    return this.step(`notification ${describeMatch(match)}`, async () => {
      const toast = this.page.locator('.notification-toast .notification-list-item-message').filter({ hasText: match }).first();
      await toast.waitFor({ state: 'visible', timeout: this.timeoutMs });
      return (await toast.innerText()).trim();
    });
  }

  // --- integrated terminal -----------------------------------------------------------------

  private activeTerminal(): Locator {
    return this.page.locator('.part.panel .terminal-wrapper.active .xterm').first();
  }

  /** Opens a new integrated terminal (Control+Backquote toggles the panel; a second call
   * opens another one with the palette) and waits for its prompt. */
  async openTerminal(): Promise<void> {
    await this.step('open a terminal', async () => {
      const before = await this.page.locator('.part.panel .terminal-wrapper').count();
      await this.focusWorkbench();
      if (before === 0) await this.page.keyboard.press('Control+Backquote');
      else await this.runCommand('Terminal: Create New Terminal');
      await this.waitFor('a new terminal', async () => (await this.page.locator('.part.panel .terminal-wrapper').count()) > before);
      await this.activeTerminal().waitFor({ state: 'visible', timeout: this.timeoutMs });
      await this.waitFor('the shell prompt', async () => (await this.terminalText()).trim().length > 0);
    });
  }

  /** Types a line into the active terminal (Enter unless `enter: false`). */
  async typeInTerminal(line: string, options: { enter?: boolean } = {}): Promise<void> {
    await this.step(`type ${JSON.stringify(line)} in the terminal`, async () => {
      const terminal = this.activeTerminal();
      await terminal.waitFor({ state: 'visible', timeout: this.timeoutMs });
      await terminal.click();
      await this.page.keyboard.type(line);
      if (options.enter ?? true) await this.page.keyboard.press('Enter');
    });
  }

  /** The active terminal's visible text (the DOM renderer: gpuAcceleration is off). */
  async terminalText(): Promise<string> {
    const rows = this.activeTerminal().locator('.xterm-rows');
    return (await rows.count()) ? rows.innerText() : '';
  }

  /** Waits for the active terminal to show text matching; returns the whole text. */
  async waitForTerminalText(match: Match, timeoutMs = this.timeoutMs): Promise<string> {
    return this.step(`terminal shows ${describeMatch(match)}`, () =>
      this.waitFor(`terminal text ${describeMatch(match)}`, async () => {
        const text = await this.terminalText();
        return matches(text, match) ? text : undefined;
      }, timeoutMs),
    );
  }

  // --- views and trees -----------------------------------------------------------------------

  /** Opens an activity-bar view container by its title (e.g. "Leasehold"). */
  async openViewContainer(title: string): Promise<void> {
    await this.step(`open view container ${title}`, async () => {
      const tab = this.page
        .locator('.part.activitybar .action-item')
        .filter({ has: this.page.locator(`a.action-label[aria-label="${title}"], a.action-label[aria-label^="${title} ("]`) })
        .first();
      await tab.waitFor({ state: 'visible', timeout: this.timeoutMs });
      if ((await tab.getAttribute('aria-selected')) !== 'true' && !(await tab.evaluate((el) => el.classList.contains('checked')))) {
        await tab.click();
      }
      await this.page
        .locator('.part.sidebar .composite.title')
        .filter({ hasText: new RegExp(escapeRegExp(title), 'i') })
        .first()
        .waitFor({ state: 'visible', timeout: this.timeoutMs });
    });
  }

  /** A tree row in the side bar (optionally opening its view container first) by its label. */
  treeItem(label: Match): Locator {
    const pattern = typeof label === 'string' ? new RegExp(`^\\s*${escapeRegExp(label)}(\\s|$)`) : label;
    return this.page
      .locator('.part.sidebar .monaco-list-row[role="treeitem"]')
      .filter({ has: this.page.locator('.monaco-icon-label .label-name, .monaco-icon-label .monaco-highlighted-label', { hasText: pattern }) })
      .first();
  }

  /** Waits for a tree item by label, opening `container` first when given; returns the row. */
  async waitForTreeItem(label: Match, options: { container?: string } = {}): Promise<Locator> {
    if (options.container) await this.openViewContainer(options.container);
    return this.step(`tree item ${describeMatch(label)}`, async () => {
      const row = this.treeItem(label);
      await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
      return row;
    });
  }

  /** The labels of the tree rows now shown in the side bar. */
  async treeLabels(): Promise<string[]> {
    return this.page.locator('.part.sidebar .monaco-list-row[role="treeitem"]').evaluateAll((rows) =>
      rows.map((row) => (row.getAttribute('aria-label') ?? (row as unknown as { innerText: string }).innerText).trim()),
    );
  }

  // --- misc ----------------------------------------------------------------------------------

  /** Makes sure key presses reach the workbench (not the URL bar or a stale widget). */
  async focusWorkbench(): Promise<void> {
    await this.page.bringToFront();
    await this.closeQuickInput();
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
  }
}

/** Launches Chromium, opens the workbench on the server's folder and waits for it to render. */
export async function openWorkbench(server: CodeServer, options: WorkbenchOptions = {}): Promise<Workbench> {
  // Chromium's crash handler writes $XDG_CONFIG_HOME/chromium whatever the profile dir is.
  const browserHome = fs.mkdtempSync(path.join(os.tmpdir(), 'leasehold-e2e-chromium-'));
  const browser = await chromium.launch({
    executablePath: options.executablePath ?? process.env.LEASEHOLD_E2E_CHROMIUM ?? '/usr/bin/chromium',
    headless: options.headless ?? process.env.LEASEHOLD_E2E_HEADED !== '1',
    args: chromiumFlags,
    env: { ...process.env, XDG_CONFIG_HOME: browserHome, XDG_CACHE_HOME: browserHome },
  });
  browser.on('disconnected', () => fs.rmSync(browserHome, { recursive: true, force: true }));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const consoleMessages: string[] = [];
  try {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(timeoutMs);
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') consoleMessages.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleMessages.push(`pageerror: ${error.message}`));
    const started = Date.now();
    await page.goto(server.workbenchUrl(options.folder), { waitUntil: 'domcontentloaded' });
    const loadTimeout = options.loadTimeoutMs ?? 60_000;
    await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: loadTimeout });
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: loadTimeout });
    return new Workbench(browser, page, server, Date.now() - started, timeoutMs, consoleMessages);
  } catch (error) {
    await browser.close().catch(() => undefined);
    throw new Error(`the workbench at ${server.workbenchUrl(options.folder)} did not render: ${error instanceof Error ? error.message : error}\ncode-server log tail:\n${server.log().slice(-2_000)}`, { cause: error });
  }
}
