import type { DeployPath } from '../deployments/request-checks';

/**
 * A problem in what the user wrote, at a path of their file (`['jobs', 1, 'steps', 0, 'timeout']`).
 * The loader turns it into an InvalidInputError naming the file and the line.
 */
export class SpecProblem extends Error {
  constructor(
    readonly path: DeployPath,
    message: string,
  ) {
    super(message);
    this.name = 'SpecProblem';
  }
}
