/**
 * `device_deploy` on the caller's side: reads a compose file, a run-spec or a deployment document,
 * inlines the files it references and answers the normalized DeployRequest the server takes. Every
 * problem is an InvalidInputError naming the file, the line and the field. Format: docs/runspec.md.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEPLOY_LIMITS, type DeployPath, type DeployRequest, InvalidInputError, showValue } from '@svc/common';
import { deployRequestFromSource, type DeploySpecOptions, parseYamlSource, SPEC_TYPES, SpecProblem, type SpecHooks, type SpecType } from '@svc/common/runspec';
import * as yaml from 'yaml';
import { composeToJob } from './compose-mapping';
import { ReferencedFileError, readReferencedFile } from './referenced-files';
import { firstRequestProblem } from './request-validation';

export { SPEC_TYPES, type SpecType };
export type LoadDeploySpecOptions = DeploySpecOptions;

async function readSpecFile(filePath: string): Promise<string> {
  let stat;
  try {
    stat = await fs.stat(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`${filePath}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (!stat.isFile()) throw new InvalidInputError(`${filePath}: not a regular file`);
  if (stat.size > DEPLOY_LIMITS.maxSpecFileBytes) {
    throw new InvalidInputError(`${filePath}: ${stat.size} bytes, more than the ${DEPLOY_LIMITS.maxSpecFileBytes} bytes a spec file may have`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await fs.readFile(filePath));
  } catch {
    throw new InvalidInputError(`${filePath}: not UTF-8 text`);
  }
}

/** What only the CLI can do: read the files a spec references from disk, map compose files, and check with the server's schema (Ajv). */
function cliHooks(filePath: string, options: DeploySpecOptions): SpecHooks {
  const baseDir = path.dirname(path.resolve(filePath));
  let fileBytes = 0;
  const readFile = async (reference: unknown, at: DeployPath): Promise<string> => {
    if (typeof reference !== 'string') throw new SpecProblem(at, 'must be a file path');
    try {
      const content = await readReferencedFile(baseDir, reference);
      fileBytes += Buffer.byteLength(content, 'utf8');
      if (fileBytes > DEPLOY_LIMITS.maxTotalFileBytes) {
        throw new SpecProblem(at, `the files referenced so far come to ${fileBytes} bytes, more than the ${DEPLOY_LIMITS.maxTotalFileBytes} bytes a deployment request may carry`);
      }
      return content;
    } catch (error) {
      if (error instanceof ReferencedFileError) throw new SpecProblem(at, error.message);
      throw error;
    }
  };
  const exists = (reference: string) =>
    fs.stat(path.resolve(baseDir, reference)).then(
      () => true,
      () => false,
    );
  return {
    readFile,
    compose: (source, root) => composeToJob({ text: source.text, value: root, filePath, name: options.name, readFile, exists }),
    requestProblem: firstRequestProblem,
  };
}

/**
 * Reads `filePath` and answers the DeployRequest it describes, normalized and validated as the
 * server validates it. Throws InvalidInputError (`file:line: field: problem`) for anything wrong.
 */
export async function loadDeploySpec(filePath: string, options: LoadDeploySpecOptions = {}): Promise<DeployRequest> {
  const specType = options.spec_type ?? 'auto';
  if (!(SPEC_TYPES as readonly string[]).includes(specType)) throw new InvalidInputError(`spec_type: ${showValue(specType)} is not one of ${SPEC_TYPES.join(', ')}`);
  const source = parseYamlSource(yaml, filePath, await readSpecFile(filePath));
  const request = await deployRequestFromSource(source, options, cliHooks(filePath, options));
  const bytes = Buffer.byteLength(JSON.stringify(request), 'utf8');
  if (bytes > DEPLOY_LIMITS.maxRequestBytes) {
    throw new InvalidInputError(`${filePath}: the request would be ${bytes} bytes, more than the ${DEPLOY_LIMITS.maxRequestBytes} bytes the server takes`);
  }
  return request;
}
