import { dirname } from 'node:path';
import type { BwrapLayout, HostPathMount } from './bwrap-arguments.js';

/**
 * The layout of a sandbox's file helper (see `ConfinedFs`): the sandbox's own layout with no
 * network, the host's node binary as the program, and that binary's directory bound read-only
 * when the system paths do not already show it. The helper is a bubblewrap process of its own:
 * what it is shown, the agent's session is not. It serves the workspace only, so the extra binds
 * are left out (one at /root would hide a node installed there).
 */
export function fileHelperLayout(layout: BwrapLayout, node: string): BwrapLayout {
  const { egress: _egress, extraBinds: _binds, ...offline } = layout;
  const shown = layout.systemMounts.some(
    (mount) =>
      mount.kind === 'ro-bind' && (node === mount.path || node.startsWith(`${mount.path}/`)),
  );
  const nodeDir: HostPathMount[] = shown ? [] : [{ kind: 'ro-bind', path: dirname(node) }];
  return { ...offline, systemMounts: [...layout.systemMounts, ...nodeDir], bashPath: node };
}
