import Docker from 'dockerode';
import { describeSandboxBehaviour } from '../../testing/sandbox-behaviour.suite.js';
import {
  DEFAULT_DOCKER_IMAGE,
  DockerSandboxProvider,
  dockerEngineProblem,
} from './docker.provider.js';

// Docker is optional on Caravel's machines (none has an engine): without one, or without the
// image, the suite is skipped with the reason, in CI too. Where both exist it must pass.
const docker = new Docker();
const engineProblem = await dockerEngineProblem(docker);
const imageProblem = engineProblem
  ? null
  : await docker
      .getImage(DEFAULT_DOCKER_IMAGE)
      .inspect()
      .then(
        () => null,
        () =>
          `image ${DEFAULT_DOCKER_IMAGE} is not built here ` +
          '(docker build -t caravel/sandbox:bookworm -f libs/sandbox/src/providers/docker/sandbox-image.Dockerfile .)',
      );

describeSandboxBehaviour({
  name: 'docker',
  isolated: true,
  skipReason: engineProblem ? `no Docker engine: ${engineProblem}` : imageProblem,
  make: (rootDir) =>
    new DockerSandboxProvider({
      rootDir,
      docker,
      timing: { killGraceMs: 1_000, startTimeoutMs: 30_000, watchdogSlackMs: 5_000 },
    }),
});
