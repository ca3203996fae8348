// Editing a JSON file that belongs to someone else (Claude Code's settings.json, a
// project's .mcp.json): refuse to touch it when it is not valid JSON, keep its indentation
// and line endings, back it up once before the first change, write atomically, and write
// nothing at all when the content would not change (so repeated installs are byte-identical).

import { randomBytes } from 'node:crypto';
import { copyFileSync, constants, existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LeaseholdError } from '../core/errors.ts';

export type JsonObject = Record<string, unknown>;

export interface LoadedJsonFile {
  path: string;
  exists: boolean;
  /** The text as read ("" when the file does not exist). */
  originalText: string;
  /** Parsed content; callers edit a structuredClone of it. */
  data: JsonObject;
}

export const BACKUP_SUFFIX = '.leasehold-backup';

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

/**
 * Reads a JSON object file. A missing or whitespace-only file is an empty object; anything
 * else that is not a JSON object is refused with the file, line and column named, so the
 * user can fix it, and the caller changes nothing.
 */
export function loadJsonObjectFile(path: string): LoadedJsonFile {
  if (!existsSync(path)) return { path, exists: false, originalText: '', data: {} };
  const originalText = readFileSync(path, 'utf8');
  if (originalText.trim() === '') return { path, exists: true, originalText, data: {} };
  let data: unknown;
  try {
    data = JSON.parse(originalText);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? NaN);
    const where = Number.isFinite(position) ? lineAndColumn(originalText, position) : undefined;
    const at = where ? ` at line ${where.line}, column ${where.column} (position ${position})` : '';
    throw new LeaseholdError(
      'invalid_argument',
      `${path} is not valid JSON${at}: ${message}. Leasehold changed nothing; fix the file and try again.`,
      { field: 'settings_file', details: { file: path, ...(where ? { position, ...where } : {}) } },
    );
  }
  if (!isJsonObject(data)) {
    throw new LeaseholdError('invalid_argument', `${path} must contain a JSON object at the top level; Leasehold changed nothing.`, {
      field: 'settings_file',
      details: { file: path },
    });
  }
  return { path, exists: true, originalText, data };
}

/** Renders like the original: same indent unit and line ending, always a trailing newline. */
export function renderLike(data: JsonObject, originalText: string): string {
  const indentMatch = /^[\t ]+(?=")/m.exec(originalText);
  const indent = indentMatch ? indentMatch[0] : '  ';
  const eol = originalText.includes('\r\n') ? '\r\n' : '\n';
  return JSON.stringify(data, null, indent).replace(/\n/g, eol) + eol;
}

export interface SaveResult {
  changed: boolean;
  created: boolean;
  deleted: boolean;
  /** Set when this save made the one-time backup. */
  backupPath?: string;
}

/**
 * Writes `data` if it differs from what is on disk. Before the first change to an existing
 * file, copies it to <file>.leasehold-backup (never overwriting an earlier backup). With
 * `deleteIfEmpty`, an empty object removes a file that Leasehold itself created (no backup
 * exists, so there was no file before us) instead of leaving "{}" behind.
 */
export function saveJsonObjectFile(file: LoadedJsonFile, data: JsonObject, options: { deleteIfEmpty?: boolean } = {}): SaveResult {
  const text = renderLike(data, file.originalText);
  const backupPath = file.path + BACKUP_SUFFIX;
  const isEmpty = Object.keys(data).length === 0;
  // Compare content, not text: an unchanged file is never rewritten, even if its formatting
  // differs from ours, so installing twice leaves it byte-identical.
  if (file.exists && JSON.stringify(data) === JSON.stringify(file.data)) return { changed: false, created: false, deleted: false };
  if (!file.exists && isEmpty) return { changed: false, created: false, deleted: false };
  if (options.deleteIfEmpty && isEmpty && file.exists && !existsSync(backupPath)) {
    unlinkSync(file.path);
    return { changed: true, created: false, deleted: true };
  }

  const result: SaveResult = { changed: true, created: !file.exists, deleted: false };
  if (file.exists && !existsSync(backupPath)) {
    copyFileSync(file.path, backupPath, constants.COPYFILE_EXCL);
    result.backupPath = backupPath;
  }
  mkdirSync(dirname(file.path), { recursive: true });
  const mode = file.exists ? statSync(file.path).mode & 0o777 : 0o644;
  const tmp = `${file.path}.leasehold-tmp-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, text, { mode, flag: 'wx' });
  renameSync(tmp, file.path);
  return result;
}
