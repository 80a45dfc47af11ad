/**
 * A round's calls run: each once approved when its tool asks for that, in parallel, their results
 * put in the history in the order the model made them. Pure: no Nest import.
 */
import { CANCELLED } from './history.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import { actsOnService, type Tool } from '../tools/tool-definition.js';
import { startCall, type StartedCall } from './call-start.js';
import { TurnCancelled, type RoundResult } from './round.js';
import { confirmPrompt, type Approval } from './approvals.js';
import { goesOnText, startedText, type BackgroundCalls } from './background-calls.js';
import type { TurnContext } from './turn-context.js';
import { needsApproval } from './untrusted-reads.js';

/**
 * Asks the user to approve `call` (`tool_confirm`, with its `confirm_prompt` filled in) once the
 * question `before` it is answered: the calls of a round that need approval are asked one at a
 * time, in the order the model made them, so that a plain yes or no answers the one just asked.
 */
async function askApproval(
  ctx: TurnContext,
  call: RoundResult['calls'][number],
  tool: Tool,
  before: Promise<unknown>,
): Promise<{ approval: Approval; refusal?: string }> {
  await before;
  if (ctx.signal.aborted) return { approval: 'cancelled' };
  const prompt = tool.confirmPrompt && confirmPrompt(tool.confirmPrompt, call.arguments);
  ctx.emit({
    type: 'tool_confirm',
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    ...(prompt && { prompt }),
    ...(!tool.confirm && { reason: 'untrusted' as const }),
  });
  return ctx.approve(call.id);
}

/**
 * Whether a call of `tool` is let finish when its turn is cut (LLM_TOOL_INTERRUPTED_CALLS): an
 * HTTP, OpenAPI or MCP tool that acts. Its request may already have done its work (a table
 * booked, a payment made): aborted, only its answer would be lost, and the model would read that
 * nothing happened.
 */
function finishesWhenCut(ctx: TurnContext, tool: Tool | undefined): boolean {
  return ctx.finishCutCalls && actsOnService(tool) && ctx.session.background !== undefined;
}

/**
 * The turn was cut while `run`, a call that acts, ran: it goes on as a background call does, its
 * result told in a later message (and `tool_result` with `background: "done"`).
 */
function goOn(ctx: TurnContext, call: { id: string; name: string }, run: StartedCall): string {
  const background = ctx.session.background as BackgroundCalls;
  const { id, name } = call;
  background.track(id, name, run.outcome, ({ ok, ms }) =>
    ctx.tally({ type: 'tool_result', id, name, ok, ms, background: 'done' }),
  );
  return goesOnText(name);
}

/** Executes a round's calls in parallel; results go to history in call order. */
export async function runCalls(
  executor: ToolExecutor,
  ctx: TurnContext,
  round: RoundResult,
): Promise<void> {
  const { history } = ctx.session;
  const reasoning = ctx.keepReasoning && round.reasoning.trim() !== '' ? round.reasoning : '';
  history.push({
    role: 'assistant',
    content: round.text === '' ? null : round.text,
    tool_calls: round.calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    })),
    ...(reasoning && { reasoning_content: reasoning }),
  });
  const results: (string | undefined)[] = round.calls.map(() => undefined);
  /** Calls that act, let finish should the turn be cut (see finishesWhenCut). */
  const finishing = new Map<number, StartedCall>();
  /** The round's last question to the user: the next is put once it is answered. */
  let asking: Promise<unknown> = Promise.resolve();
  const running = round.calls.map(async (call, i) => {
    let run = ctx.started.get(call.id);
    if (!run) {
      // A tool that needs the user's approval runs only once it is given.
      const tool = ctx.snapshot.byName.get(call.name);
      if (needsApproval(tool, ctx.readUntrusted)) {
        const answer = askApproval(ctx, call, tool!, asking);
        asking = answer;
        const { approval, refusal } = await answer;
        if (approval === 'cancelled') return;
        if (refusal !== undefined) {
          results[i] = refusal;
          ctx.emit({ type: 'tool_result', id: call.id, name: call.name, ok: false, ms: 0 });
          return;
        }
      }
      const background = tool?.background && ctx.session.background;
      if (background) {
        // Its progress goes on after the turn: the connection's calls tell it;
        // and no user waits on it to answer its server's questions.
        const progress = background.report.bind(background);
        const context = { ...ctx.toolContext, progress, ask: undefined };
        const run = startCall(executor, ctx, call, background.signal, context);
        background.track(call.id, call.name, run.outcome, (r) =>
          ctx.tally({
            type: 'tool_result',
            id: r.id,
            name: r.name,
            ok: r.ok,
            ms: r.ms,
            background: 'done',
          }),
        );
        results[i] = startedText(call.name);
        ctx.results.succeeded(call, tool, results[i]);
        const { id, name } = call;
        ctx.emit({ type: 'tool_result', id, name, ok: true, ms: 0, background: 'started' });
        return;
      }
      if (finishesWhenCut(ctx, tool)) {
        // On the connection's signal, not the turn's: a cut turn leaves it running.
        run = startCall(executor, ctx, call, ctx.session.background!.signal);
        finishing.set(i, run);
      } else run = startCall(executor, ctx, call);
    }
    const outcome = await run.outcome;
    // Cut meanwhile: a call let finish tells its result later (see goOn).
    if (outcome === undefined || ctx.signal.aborted) return;
    results[i] = outcome.text;
    if (outcome.ok && !outcome.repeated)
      ctx.results.succeeded(call, ctx.snapshot.byName.get(call.name), outcome.text);
    ctx.emit({
      type: 'tool_result',
      id: call.id,
      name: call.name,
      ok: outcome.ok,
      ms: outcome.ms,
      ...(outcome.logs ? { logs: outcome.logs } : {}),
      ...(outcome.cached ? { cached: true } : {}),
      ...(outcome.repeated ? { repeated: true } : {}),
      ...(outcome.modelError ? { model_error: outcome.modelError } : {}),
      ...(outcome.mocked ? { mocked: true } : {}),
    });
  });
  // Listened to for this round only: a turn of many rounds must not pile listeners on its signal.
  let onAbort = () => {};
  const cancelled = new Promise<void>((resolve) => {
    onAbort = resolve;
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([Promise.all(running), cancelled]).finally(() =>
    ctx.signal.removeEventListener('abort', onAbort),
  );
  round.calls.forEach((call, i) => {
    const run = results[i] === undefined ? finishing.get(i) : undefined;
    const content = run && ctx.signal.aborted ? goOn(ctx, call, run) : results[i];
    history.push({ role: 'tool', tool_call_id: call.id, content: content ?? CANCELLED });
  });
  ctx.results.roundEnded();
  if (ctx.signal.aborted) throw new TurnCancelled();
}
