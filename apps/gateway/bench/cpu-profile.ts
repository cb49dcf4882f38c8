/**
 * Reading a V8 `.cpuprofile` (what `node --cpu-prof` writes): which functions
 * the process spent its own time in (self time) and under (total time).
 * Pure, so a spec can check the arithmetic on a hand-made profile.
 */

export interface CpuProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    /** 0-based, as V8 writes it. */
    readonly lineNumber: number;
    readonly columnNumber?: number;
  };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly CpuProfileNode[];
  /** Microseconds. */
  readonly startTime: number;
  readonly endTime: number;
  /** The node on top of the stack at each sample. */
  readonly samples: readonly number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  readonly timeDeltas: readonly number[];
}

export interface FunctionTime {
  readonly functionName: string;
  /** `path:line` (1-based), or empty for V8's pseudo-frames such as `(garbage collector)`. */
  readonly location: string;
  readonly selfMs: number;
  /** Share of the profile's busy time (everything but `(idle)`), in percent. */
  readonly selfPercent: number;
  /** Time with this function anywhere on the stack (recursion counted once). */
  readonly totalMs: number;
  readonly totalPercent: number;
}

export interface ProfileSummary {
  readonly durationMs: number;
  readonly busyMs: number;
  readonly functions: readonly FunctionTime[];
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Where a frame's script lives, made short: `file:///…/apps/gateway/dist/src/server.js`
 * becomes `apps/gateway/dist/src/server.js` when `root` is that repository's path.
 */
export function shortLocation(url: string, lineNumber: number, root = ''): string {
  if (url === '') return '';
  let path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  if (root !== '' && path.startsWith(prefix)) path = path.slice(prefix.length);
  else {
    const modules = path.lastIndexOf('/node_modules/');
    if (modules !== -1) path = path.slice(modules + 1);
  }
  return `${path}:${lineNumber + 1}`;
}

/**
 * Self and total time per function, most self time first. Each sample lasts
 * until the next one (the last until endTime), as Chrome's profiler counts it.
 */
export function summariseProfile(profile: CpuProfile, root = ''): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  const times: number[] = [];
  for (const delta of profile.timeDeltas) {
    at += delta;
    times.push(at);
  }
  profile.samples.forEach((id, i) => {
    const start = times[i] ?? profile.startTime;
    const end = times[i + 1] ?? profile.endTime;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, end - start));
  });

  const keyOf = (node: CpuProfileNode): string =>
    `${node.callFrame.functionName || '(anonymous)'}\u0000${shortLocation(node.callFrame.url, node.callFrame.lineNumber, root)}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let idleUs = 0;
  let allUs = 0;

  // Depth-first from the root: a node's total is its own time plus its subtree's; a function already on
  // the stack above (recursion) is not counted twice.
  const childIds = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  const roots = profile.nodes.filter((node) => !childIds.has(node.id));
  const onStack = new Map<string, number>();
  const visit = (node: CpuProfileNode): number => {
    const key = keyOf(node);
    const own = selfUs.get(node.id) ?? 0;
    allUs += own;
    if (node.callFrame.functionName === '(idle)') idleUs += own;
    self.set(key, (self.get(key) ?? 0) + own);
    onStack.set(key, (onStack.get(key) ?? 0) + 1);
    let subtree = own;
    for (const id of node.children ?? []) {
      const child = byId.get(id);
      if (child !== undefined) subtree += visit(child);
    }
    const depth = onStack.get(key) ?? 1;
    if (depth === 1) {
      total.set(key, (total.get(key) ?? 0) + subtree);
      onStack.delete(key);
    } else {
      onStack.set(key, depth - 1);
    }
    return subtree;
  };
  for (const node of roots) visit(node);

  const busyUs = Math.max(allUs - idleUs, 1);
  const functions = [...self.entries()]
    .filter(([key]) => !key.startsWith('(root)\u0000') && !key.startsWith('(idle)\u0000'))
    .map(([key, selfTime]): FunctionTime => {
      const [functionName = '', location = ''] = key.split('\u0000');
      const totalTime = total.get(key) ?? selfTime;
      return {
        functionName,
        location,
        selfMs: round(selfTime / 1000, 1),
        selfPercent: round((selfTime / busyUs) * 100, 1),
        totalMs: round(totalTime / 1000, 1),
        totalPercent: round((totalTime / busyUs) * 100, 1),
      };
    })
    .sort((a, b) => b.selfMs - a.selfMs || b.totalMs - a.totalMs);
  return {
    durationMs: round((profile.endTime - profile.startTime) / 1000, 1),
    busyMs: round(busyUs / 1000, 1),
    functions,
  };
}

/**
 * The top `limit` functions as an aligned text table, by self time (where the
 * CPU went) or by total time (what a call costs with everything under it).
 */
export function renderTopFunctions(
  summary: ProfileSummary,
  limit: number,
  sortBy: 'self' | 'total' = 'self',
): string {
  const sorted =
    sortBy === 'self'
      ? summary.functions
      : [...summary.functions].sort((a, b) => b.totalMs - a.totalMs || b.selfMs - a.selfMs);
  const rows = sorted
    .slice(0, limit)
    .map((f) => [
      f.selfMs.toFixed(1),
      `${f.selfPercent.toFixed(1)}%`,
      f.totalMs.toFixed(1),
      `${f.totalPercent.toFixed(1)}%`,
      f.functionName,
      f.location,
    ]);
  const header = ['self ms', 'self', 'total ms', 'total', 'function', 'where'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const lines = all.map((row) =>
    row
      .map((cell, i) => (i < 4 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  return (
    `profile ${summary.durationMs} ms, busy (not idle) ${summary.busyMs} ms; percentages of busy time\n` +
    `${lines.join('\n')}\n`
  );
}
