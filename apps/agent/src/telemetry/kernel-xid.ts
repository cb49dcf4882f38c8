import { pciKey, type PciKey } from './nvidia-smi-telemetry';

/** The last Xid the NVIDIA kernel driver logged for one GPU. */
export interface XidEvent {
  readonly xid: number;
  /** The driver's description after the pid/name fields, e.g. "GPU has fallen off the bus." */
  readonly message: string | null;
}

/**
 * `NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.`
 * — the form every driver since 418 logs, whatever prefix (dmesg time, /dev/kmsg
 * record header) precedes it. nvidia-smi has no query field for Xids: the
 * kernel log is where the driver reports them.
 */
const XID_LINE = /NVRM: Xid \(PCI:([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\): (\d{1,4}),\s*(.*)$/i;
const LEADING_FIELD = /^(?:pid|name)=[^,]*,\s*/i;
const MAX_MESSAGE_CHARS = 240;

/** The latest Xid per GPU (by PCI address) in kernel log text; later lines win. */
export function parseKernelXids(text: string): Map<PciKey, XidEvent> {
  const latest = new Map<PciKey, XidEvent>();
  for (const line of text.split(/\r?\n/)) {
    const match = XID_LINE.exec(line);
    if (
      match?.[1] === undefined ||
      match[2] === undefined ||
      match[3] === undefined ||
      match[4] === undefined
    )
      continue;
    const xid = Number(match[4]);
    if (xid === 0) continue; // not an Xid the driver defines
    let rest = (match[5] ?? '').trim();
    while (LEADING_FIELD.test(rest)) rest = rest.replace(LEADING_FIELD, '');
    // Bounded: the field goes into every heartbeat and the message is the driver's, not ours to keep whole.
    const message = rest === '' ? null : rest.slice(0, MAX_MESSAGE_CHARS);
    latest.set(pciKey(match[1], match[2], match[3]), { xid, message });
  }
  return latest;
}
