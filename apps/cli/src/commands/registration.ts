import type { Command } from 'commander';
import type { CommandContext } from '../context';

/** cli.ts's helpers a command module registers its commands with: the action wrapper, a group, a leaf command. */
export type Run = <A extends unknown[]>(
  work: (ctx: CommandContext, ...args: A) => Promise<number>,
) => (this: Command, ...args: A) => Promise<void>;
export type Group = (parent: Command, name: string, description: string) => Command;
export type Leaf = (parent: Command, nameAndArgs: string) => Command;

export interface CommandRegistrars {
  readonly group: Group;
  readonly leaf: Leaf;
  readonly run: Run;
}
