/**
 * What the deploy form sends, from what the user pasted or picked: a deploy file as `svc deploy`
 * reads it (a run-spec job or a deployment document, docs/runspec.md), turned into the request by
 * the CLI's own conversion (@svc/common/runspec); or a DeployRequest as the API takes it (a root
 * `mode:`, JSON or YAML), sent as written. Problems are found here, before any request, and named
 * `deploy.yaml:3: steps[0].run: …`, with the server's own schema (compiled at build time).
 */
import { deployRequestFromSource, firstRequestProblem, InvalidInputError, isPlain, parseYamlSource, SpecProblem } from '@svc/common/runspec';
import validate from 'virtual:deploy-request-validator';
import * as yaml from 'yaml';

/** The name problems are reported under when the text was pasted. */
export const PASTED = 'pasted text';

export async function deployRequestFromText(text: string, file = PASTED): Promise<unknown> {
  if (text.trim() === '') throw new InvalidInputError(`${file}: empty: paste a run-spec, a deployment document or a deploy request`);
  const source = parseYamlSource(yaml, file, text);
  if (isPlain(source.value) && 'mode' in source.value) return source.value;
  return deployRequestFromSource(source, {}, {
    readFile: (reference, at) => {
      throw new SpecProblem(at, `${JSON.stringify(reference)} is a file next to the spec, which a browser cannot read: write it inline as {content: "..."}, or deploy with svc deploy`);
    },
    requestProblem: (request) => firstRequestProblem(validate, request),
  });
}
