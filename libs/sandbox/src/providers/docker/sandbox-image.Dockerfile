# The default image of the docker sandbox provider (DEFAULT_DOCKER_IMAGE):
#   docker build -t caravel/sandbox:bookworm -f libs/sandbox/src/providers/docker/sandbox-image.Dockerfile .
# bash runs the session driver; git and less are what agents (and the behaviour suite) use;
# socat forwards to the egress proxy's socket; node (Debian's, 18) serves the sandbox's file
# operations from inside the container or pod (the file helper: without it they fail, naming it).
# Commands run as uid 1000, never root. The kubernetes provider runs the same image.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash coreutils ca-certificates git less socat procps nodejs \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 1000 --create-home --home-dir /home/agent --shell /bin/bash agent
USER 1000:1000
WORKDIR /workspace
