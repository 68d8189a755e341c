/**
 * A YAML file read for deployment, kept with its syntax tree so that any problem found later (in
 * normalization or by the schema) is reported at the line the user wrote it:
 * `deploy.yaml:12: jobs[1].steps[0].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)`.
 *
 * The `yaml` package is the caller's (the CLI and the dashboard carry it; a device does not): it
 * is passed in, and only its types are imported here.
 */
import type * as Yaml from 'yaml';
import type { Document, Node, Pair, YAMLError } from 'yaml';
import { escapeControls } from '../control-chars';
import type { DeployPath } from '../deployments/request-checks';
import { formatDeployPath } from '../deployments/request-checks';
import { InvalidInputError } from '../errors';

/** What is used of the `yaml` package: `import * as yaml from 'yaml'` fits. */
export type YamlLibrary = Pick<typeof Yaml, 'parseDocument' | 'LineCounter' | 'isAlias' | 'isMap' | 'isScalar' | 'isSeq'>;

/** Alias expansions allowed while reading a file: compose files reuse anchors, alias bombs multiply them. */
export const MAX_ALIAS_COUNT = 100;

export interface YamlSource {
  /** The file as the caller named it, for messages. */
  file: string;
  text: string;
  doc: Document.Parsed;
  lines: Yaml.LineCounter;
  yaml: YamlLibrary;
  /** The document as plain data. */
  value: unknown;
}

function yamlMessage(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function yamlError(file: string, problem: YAMLError): InvalidInputError {
  const line = problem.linePos?.[0].line;
  const message = problem.code === 'RESOURCE_EXHAUSTION' ? 'nested too deeply' : yamlMessage(problem.message);
  return new InvalidInputError(escapeControls(`${file}${line ? `:${line}` : ''}: ${message}`));
}

/** Parses one YAML document. Refuses syntax errors, duplicate keys, several documents in one file and alias bombs. */
export function parseYamlSource(yaml: YamlLibrary, file: string, text: string): YamlSource {
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: lines, merge: true, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length) throw yamlError(file, doc.errors[0]);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError) {
      throw new InvalidInputError(`${file}: more than ${MAX_ALIAS_COUNT} alias expansions, refused as a possible alias bomb`);
    }
    if (error instanceof RangeError) throw new InvalidInputError(`${file}: nested too deeply`);
    throw error;
  }
  return { file, text, doc, lines, value, yaml };
}

/** Refuses what YAML only warns about, such as tags it does not know (our own formats use none; compose files may). */
export function refuseYamlWarnings(source: YamlSource): void {
  if (source.doc.warnings.length) throw yamlError(source.file, source.doc.warnings[0]);
}

function isMergeKey(yaml: YamlLibrary, pair: Pair): boolean {
  return yaml.isScalar(pair.key) && (pair.key.value === '<<' || pair.key.source === '<<');
}

/** The pair of `map` with key `key`, looking through `<<` merge keys as YAML does. */
function findPair(source: YamlSource, map: unknown, key: string, depth = 0): Pair | undefined {
  const { isAlias, isMap, isScalar, isSeq } = source.yaml;
  const node = isAlias(map) ? map.resolve(source.doc) : map;
  if (!isMap(node) || depth > 8) return undefined;
  const own = node.items.find((pair) => !isMergeKey(source.yaml, pair) && String(isScalar(pair.key) ? pair.key.value : pair.key) === key);
  if (own) return own;
  for (const merge of node.items.filter((pair) => isMergeKey(source.yaml, pair))) {
    const targets = isSeq(merge.value) ? merge.value.items : [merge.value];
    for (const target of targets) {
      const found = findPair(source, target, key, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** The node at `path` (aliases followed), or the deepest ancestor present, with its line. */
export function nodeAt(source: YamlSource, path: DeployPath): { node: unknown; line: number | undefined; exact: boolean } {
  const { isAlias, isMap, isSeq } = source.yaml;
  const lineOf = (node: unknown) => {
    const offset = (node as Node | null)?.range?.[0];
    return offset === undefined ? undefined : source.lines.linePos(offset).line;
  };
  let node: unknown = source.doc.contents;
  let line = lineOf(node) ?? 1;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(source.doc);
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) return { node, line, exact: false };
      line = lineOf(item) ?? line;
      node = item;
    } else if (isMap(node)) {
      const pair = findPair(source, node, String(segment));
      if (!pair) return { node, line, exact: false };
      line = lineOf(pair.key) ?? lineOf(pair.value) ?? line;
      node = pair.value;
    } else {
      return { node, line, exact: false };
    }
  }
  return { node: isAlias(node) ? node.resolve(source.doc) : node, line, exact: true };
}

/**
 * The text of a plain scalar as written, for places that want text (argv items, env values):
 * `010` stays `010`, `1e3` stays `1e3`, where YAML would read numbers.
 */
export function writtenText(source: YamlSource, path: DeployPath, value: unknown): unknown {
  if (typeof value !== 'number' && typeof value !== 'boolean') return value;
  const { node, exact } = nodeAt(source, path);
  if (exact && source.yaml.isScalar(node) && node.type === 'PLAIN' && typeof node.source === 'string') return node.source;
  return String(value);
}

/** `deploy.yaml:12: jobs[1].steps[0].timeout: <message>` */
export function sourceError(source: YamlSource, path: DeployPath, message: string): InvalidInputError {
  const { line } = nodeAt(source, path);
  const where = path.length ? `${formatDeployPath(path)}: ` : '';
  return new InvalidInputError(escapeControls(`${source.file}${line ? `:${line}` : ''}: ${where}${message}`));
}
