import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NodeCredentialSchema, type NodeCredential } from '@lunanexa/agent-protocol';
import { writeFileAtomic } from '../ssh/atomic-file';

/** `<dataDir>/credential.json`: the newest node credential the controller issued (mode 0600). */
export const CREDENTIAL_FILE = 'credential.json';

/**
 * The node credential the agent holds. It is verified against the controller
 * key before it is stored; what is read back at start is parsed, and an
 * unreadable file only means "no credential yet" (the controller sends the
 * current one again, since heartbeats show the serial held).
 */
export class CredentialStore {
  private constructor(
    private readonly file: string,
    private held: NodeCredential | null,
  ) {}

  static async open(dataDir: string): Promise<{ store: CredentialStore; problem: string | null }> {
    const file = join(dataDir, CREDENTIAL_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { store: new CredentialStore(file, null), problem: null };
      throw error;
    }
    let parsed: NodeCredential | null = null;
    try {
      const result = NodeCredentialSchema.safeParse(JSON.parse(text) as unknown);
      if (result.success) parsed = result.data;
    } catch {
      parsed = null;
    }
    return {
      store: new CredentialStore(file, parsed),
      problem: parsed === null ? `${file} is not a node credential; ignoring it` : null,
    };
  }

  current(): NodeCredential | null {
    return this.held;
  }

  async replace(credential: NodeCredential): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(credential, null, 2)}\n`, 0o600);
    this.held = credential;
  }
}
