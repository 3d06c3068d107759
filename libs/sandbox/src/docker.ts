// `@caravel/sandbox/docker`: the Docker provider, apart from the package's main entry so that
// loading the sandbox library does not load dockerode (its SSH, gRPC and protobuf clients took
// about a quarter of a second of every start).
export {
  DEFAULT_DOCKER_IMAGE,
  DockerSandboxProvider,
  dockerEngineProblem,
  type DockerEgressProxyOptions,
  type DockerProviderOptions,
} from './providers/docker/docker.provider.js';
export {
  DOCKER_HOME,
  DOCKER_LABELS,
  DOCKER_WORKDIR,
  containerName,
  containerSpec,
  type DockerContainerInput,
} from './providers/docker/docker-container-spec.js';
