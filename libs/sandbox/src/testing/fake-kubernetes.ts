import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import {
  EXEC_PROTOCOLS,
  FakeKubelet,
  podMountProblem,
  type ExecProtocol,
  type FakeIsolation,
} from './fake-kubelet.js';
import { ServerWebSocket } from './fake-kubernetes-websocket.js';

/** The API verbs the fake serves (and can be told to fail). */
export type FakeVerb = 'create' | 'get' | 'list' | 'delete' | 'exec';
/** An HTTP error the next calls of a verb get (a `Status` body), or `hang`: never answered. */
export type FakeFault =
  { readonly status: number; readonly reason: string; readonly message: string } | 'hang';

/** Settings of the loopback fake of the Kubernetes API. */
export interface FakeKubernetesOptions {
  /** PersistentVolumeClaims by name, as local directories. */
  readonly claims: Readonly<Record<string, string>>;
  /** The exec subprotocols it accepts (default both v5 and v4, v5 preferred). */
  readonly protocols?: readonly ExecProtocol[];
  /**
   * How its kubelet runs execs: `none` (default) as plain local processes; `bwrap` each in a
   * bubblewrap namespace that shows only the system's `/usr`, a fresh `/tmp` and the pod's claim
   * mounts, so that what an exec reaches by a path is what a pod would (the file race spec).
   */
  readonly isolation?: FakeIsolation;
}

/** A running fake API server. */
export interface FakeKubernetes {
  readonly url: string;
  /** A kubeconfig for it, as `@kubernetes/client-node` loads one. */
  kubeConfig(): KubeConfig;
  /** The pods as stored, by `<namespace>/<name>`. */
  readonly pods: ReadonlyMap<string, V1Pod>;
  /** Requests seen, as `VERB path` (`exec` for the upgrades, with the subprotocol chosen). */
  readonly requests: readonly string[];
  /** The next `times` calls of `verb` fail with `fault`. */
  fail(verb: FakeVerb, fault: FakeFault, times?: number): void;
  /** Pods created from now on stay Pending with this waiting reason (null: they start again). */
  holdPending(waiting: { readonly reason: string; readonly message: string } | null): void;
  /** Puts a pod in the API without a sandbox behind it (an orphan a crash left). */
  addPod(namespace: string, pod: V1Pod): void;
  close(): Promise<void>;
}

const POD_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?(?:\/(exec))?$/;

function status(code: number, reason: string, message: string): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}

function matches(pod: V1Pod, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const [key = '', value = ''] = term.split('=');
    return pod.metadata?.labels?.[key] === value;
  });
}

/**
 * A real HTTP server on 127.0.0.1 answering the pod endpoints of the Kubernetes API in its wire
 * format (JSON `Pod`, `PodList` and `Status` objects; errors as `Status` with `code` and
 * `reason`) and the `exec` subresource as a WebSocket upgrade speaking `v5.channel.k8s.io` or
 * `v4.channel.k8s.io` (see `FakeKubelet`). A created pod is Pending, then Running with a
 * container state, unless told to hold. `@kubernetes/client-node` talks to it unmodified.
 */
export async function startFakeKubernetes(options: FakeKubernetesOptions): Promise<FakeKubernetes> {
  const pods = new Map<string, V1Pod>();
  const requests: string[] = [];
  const faults = new Map<FakeVerb, { fault: FakeFault; left: number }>();
  const kubelet = new FakeKubelet(options.claims, options.isolation ?? 'none');
  const hung = new Set<ServerResponse | Duplex>();
  let pending: { reason: string; message: string } | null = null;

  const faultFor = (verb: FakeVerb): FakeFault | undefined => {
    const entry = faults.get(verb);
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) faults.delete(verb);
    return entry.fault;
  };
  const start = (key: string) => {
    const pod = pods.get(key);
    if (!pod?.status || pending) return;
    pod.status = {
      phase: 'Running',
      podIP: '127.0.0.1',
      startTime: new Date(),
      containerStatuses: [
        {
          name: pod.spec?.containers[0]?.name ?? 'sandbox',
          image: pod.spec?.containers[0]?.image ?? '',
          imageID: '',
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date() } },
        },
      ],
    };
  };

  const rest = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const route = POD_PATH.exec(url.pathname);
    const send = (code: number, body: unknown) => {
      response.writeHead(code, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (!route || route[3])
      return send(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, namespace = '', name] = route;
    const verb: FakeVerb =
      request.method === 'POST'
        ? 'create'
        : request.method === 'DELETE'
          ? 'delete'
          : name
            ? 'get'
            : 'list';
    requests.push(`${verb} ${url.pathname}`);
    const fault = faultFor(verb);
    if (fault === 'hang') return void hung.add(response);
    if (fault) return send(fault.status, status(fault.status, fault.reason, fault.message));
    const key = `${namespace}/${name ?? ''}`;
    if (verb === 'list') {
      const items = [...pods.entries()].filter(
        ([k, pod]) =>
          k.startsWith(`${namespace}/`) && matches(pod, url.searchParams.get('labelSelector')),
      );
      return send(200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: items.map(([, pod]) => pod),
      });
    }
    if (verb === 'create') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const pod = JSON.parse(Buffer.concat(chunks).toString('utf8')) as V1Pod;
      const podKey = `${namespace}/${pod.metadata?.name ?? ''}`;
      if (pods.has(podKey))
        return send(
          409,
          status(409, 'AlreadyExists', `pods "${pod.metadata?.name}" already exists`),
        );
      const waiting = pending ? { waiting: pending } : { waiting: { reason: 'ContainerCreating' } };
      const stored: V1Pod = {
        ...pod,
        metadata: {
          ...pod.metadata,
          namespace,
          uid: randomUUID(),
          resourceVersion: '1',
          creationTimestamp: new Date(),
        },
        status: {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'sandbox',
              image: '',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: waiting,
            },
          ],
        },
      };
      pods.set(podKey, stored);
      setImmediate(() => start(podKey));
      return send(201, stored);
    }
    const pod = pods.get(key);
    if (!pod) return send(404, status(404, 'NotFound', `pods "${name}" not found`));
    if (verb === 'get') return send(200, pod);
    pods.delete(key);
    await kubelet.stop(name ?? '');
    return send(200, { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date() } });
  };

  const refuse = (socket: Duplex, code: number, reason: string, message: string) => {
    const body = JSON.stringify(status(code, reason, message));
    socket.end(
      `HTTP/1.1 ${code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };
  const upgrade = (request: IncomingMessage, socket: Duplex) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const route = POD_PATH.exec(url.pathname);
    if (!route?.[3] || !route[2]) return refuse(socket, 404, 'NotFound', 'no such subresource');
    const offered = String(request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    const accepted = options.protocols ?? EXEC_PROTOCOLS;
    const protocol = accepted.find((candidate) => offered.includes(candidate));
    requests.push(`exec ${url.pathname} ${protocol ?? 'none'}`);
    const fault = faultFor('exec');
    if (fault === 'hang') return void hung.add(socket);
    if (fault) return refuse(socket, fault.status, fault.reason, fault.message);
    if (!protocol)
      return refuse(socket, 400, 'BadRequest', 'no supported exec subprotocol offered');
    const pod = pods.get(`${route[1]}/${route[2]}`);
    if (!pod) return refuse(socket, 404, 'NotFound', `pods "${route[2]}" not found`);
    if (pod.status?.phase !== 'Running')
      return refuse(
        socket,
        400,
        'BadRequest',
        `pod ${route[2]} is not running (${pod.status?.phase ?? 'Unknown'})`,
      );
    if (url.searchParams.get('container') !== pod.spec?.containers[0]?.name)
      return refuse(
        socket,
        400,
        'BadRequest',
        `container ${url.searchParams.get('container')} is not valid for pod ${route[2]}`,
      );
    const problem = podMountProblem(pod, options.claims);
    if (problem) return refuse(socket, 500, 'InternalError', problem);
    kubelet.run(
      pod,
      url.searchParams.getAll('command'),
      ServerWebSocket.accept(request, socket, protocol),
      protocol,
    );
  };

  // Loaded here, not at import: the testing entry must not load the client for every spec.
  const client = await import('@kubernetes/client-node');
  const server = createServer((request, response) => void rest(request, response));
  server.on('upgrade', upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    pods,
    requests,
    kubeConfig: () => {
      const config = new client.KubeConfig();
      config.loadFromOptions({
        clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
        users: [{ name: 'broker', token: 'fake-service-account-token' }],
        contexts: [{ name: 'fake', cluster: 'fake', user: 'broker', namespace: 'sandboxes' }],
        currentContext: 'fake',
      });
      return config;
    },
    fail: (verb, fault, times = 1) => void faults.set(verb, { fault, left: times }),
    holdPending: (waiting) => {
      pending = waiting;
    },
    addPod: (namespace, pod) => void pods.set(`${namespace}/${pod.metadata?.name ?? ''}`, pod),
    close: async () => {
      await kubelet.stopAll();
      for (const held of hung) held.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
