// A human summary of `leasehold hooks install|uninstall --json` output. The CLI prints the
// installer's InstallSummary / UninstallSummary (src/claude/settingsInstaller.ts); anything
// unexpected is shown as-is rather than guessed at. Pure.
import { isJsonObjectValue } from './json.ts';

export function hooksSummaryText(action: 'install' | 'uninstall', scope: string, output: unknown): { text: string; file?: string } {
  const value = Array.isArray(output) ? output[0] : output;
  if (!isJsonObjectValue(value)) return { text: `Claude Code hooks ${action} (${scope}): ${JSON.stringify(output)}` };
  const file = typeof value.file === 'string' ? value.file : undefined;
  const list = (key: string) => (Array.isArray(value[key]) ? (value[key] as unknown[]).map(String) : []);
  const where = file ? ` in ${file}` : '';
  const backup = typeof value.backup === 'string' ? ` Backup: ${value.backup}.` : '';
  if (action === 'install') {
    if (value.changed === false) return { text: `Claude Code hooks already installed (${scope} scope)${where}; nothing changed.`, file };
    const parts = [
      list('added').length ? `added ${list('added').join(', ')}` : '',
      list('updated').length ? `updated ${list('updated').join(', ')}` : '',
      list('unchanged').length ? `unchanged ${list('unchanged').join(', ')}` : '',
    ].filter(Boolean);
    return { text: `Installed Claude Code hooks (${scope} scope)${where}${value.created === true ? ' (new file)' : ''}: ${parts.join('; ') || 'done'}.${backup}`, file };
  }
  if (value.changed === false) return { text: `No Leasehold hooks were installed (${scope} scope)${where}; nothing changed.`, file };
  return {
    text: `Removed Leasehold hooks (${scope} scope)${where}: ${list('removed').join(', ') || 'none'}${value.deleted === true ? '; the file held nothing else and was deleted' : ''}.${backup}`,
    file,
  };
}
