// Pix3 agent kit {{version}}: the types of bot policies (design/tests/bots/<name>.ts). Global
// declarations: a policy imports nothing. pix3_game_run {bot: "<name>"} loads the policy, then
// calls its tick once per stepped frame, before the run's until/fail predicates are judged.
//
//   export default {
//     name: 'dodge',
//     tick(bot) {
//       const enemy = bot.node('Enemy');
//       if (enemy && enemy.position.x < 100) bot.press('jump');
//     },
//   } satisfies BotPolicy;

/** One live node as the bot sees it this frame (read-only; read again next frame). */
declare interface BotNodeView {
  /** The node's id in its scene file. */
  readonly nodeId: string;
  readonly name: string;
  /** The node type, as a scene file names it. */
  readonly type: string;
  readonly visible: boolean;
  /** World position (z is 0 for a 2D node). */
  readonly position: { readonly x: number; readonly y: number; readonly z: number };
  /** The node's origin on the page in CSS pixels (where a click lands), or null off screen. */
  readonly screen: { readonly x: number; readonly y: number } | null;
  /** A property of the live node by dot path (`width`, `label`, `scale.x`); undefined when absent. */
  prop(path: string): unknown;
}

/** The running game, handed to tick. Reads are of this frame; input takes effect on the NEXT tick. */
declare interface Pix3TestBot {
  /** Frames stepped since the run started (0 is the baseline frame). */
  readonly frame: number;
  /** Game time in milliseconds (frame × the run's fixed step). */
  readonly timeMs: number;
  /** The game's debug snapshot (its registered provider) at a dot path, or all of it; undefined without one. */
  state(path?: string): unknown;
  /** A live node by name or node id, or null when none answers. */
  node(nameOrId: string): BotNodeView | null;
  /** Every live node with that name, node id or node type. */
  nodes(query: string): BotNodeView[];
  /** An input axis's current value (-1 … 1). */
  axis(name: string): number;
  /** Hold an input action down from the NEXT tick on, until release. */
  press(action: string): void;
  /** Let go of a held input action (from the NEXT tick on). */
  release(action: string): void;
  /** Set an input axis (-1 … 1) from the NEXT tick on. */
  setAxis(name: string, value: number): void;
  /** A pointer tap at page coordinates (CSS pixels), delivered on the NEXT tick. */
  tap(x: number, y: number): void;
  /** Dispatch a game command through the scene's command registry. */
  command(name: string, args?: Record<string, unknown>): void;
  /** End the run: the bot's goal was reached (the verdict quotes the reason). */
  pass(reason: string): void;
  /** End the run: the bot saw the game go wrong. */
  fail(reason: string): void;
  /** A line in the run's log. */
  log(message: string): void;
}

/** A bot policy: the default export of design/tests/bots/<name>.ts. */
declare interface BotPolicy {
  /** Names the bot in the verdict; by convention the file name. */
  readonly name: string;
  /** Once, at frame 0, before the first tick. */
  setup?(bot: Pix3TestBot): void;
  /** Every stepped frame. */
  tick(bot: Pix3TestBot): void;
  /** Once, when the run ends (whatever the outcome). */
  dispose?(): void;
}
