/**
 * GitHub's own parser of workflow and action files (@actions/workflow-parser, the one behind the
 * GitHub Actions extension for VS Code, validating against GitHub's schemas) and its evaluator of
 * `${{ }}` expressions (@actions/expressions): the CI files the documentation shows, and
 * action.yml, are held to what GitHub accepts, and action.yml's steps are run as a runner runs them
 * (issue 42 item 1, item 2). Vitest inlines the parser (test/vitest.config.ts): it imports its JSON
 * schemas without import attributes, as a bundler would.
 */
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { parseAction } from '@actions/workflow-parser/actions/index';

/** The problems GitHub's parser finds in a workflow file (none: a workflow GitHub runs). */
export function workflowProblems(name: string, content: string): string[] {
  const result = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return result.context.errors.getErrors().map((e) => e.message);
}

/** The problems GitHub's parser finds in an action.yml. */
export function actionProblems(name: string, content: string): string[] {
  const result = parseAction({ name, content }, new NoOperationTraceWriter());
  return result.context.errors.getErrors().map((e) => e.message);
}

/** What a context holds: strings, or objects of them (`steps.run.outputs.verdict`). */
export interface Contexts {
  [name: string]: ContextValue;
}
type ContextValue = string | boolean | { [key: string]: ContextValue };

function toData(value: ContextValue): data.ExpressionData {
  if (typeof value === 'string') return new data.StringData(value);
  if (typeof value === 'boolean') return new data.BooleanData(value);
  return new data.Dictionary(...Object.entries(value).map(([key, v]) => ({ key, value: toData(v) })));
}

/** The job's status functions: `failed`, whether a step before has failed (nothing is ever cancelled here). */
function statusFunctions(failed: boolean) {
  const fn = (name: string, value: boolean) => ({
    name,
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value),
  });
  return [fn('success', !failed), fn('always', true), fn('failure', failed), fn('cancelled', false)];
}

/** Evaluates one expression (without `${{ }}`) in `contexts` (inputs, github, steps…). */
export function evaluate(expression: string, contexts: Contexts, failed = false): data.ExpressionData {
  const functions = statusFunctions(failed);
  const lexed = new Lexer(expression).lex();
  const parsed = new Parser(lexed.tokens, Object.keys(contexts), functions).parse();
  const evaluator = new Evaluator(
    parsed,
    toData(contexts) as data.Dictionary,
    new Map(functions.map((f) => [f.name.toLowerCase(), f])),
  );
  return evaluator.evaluate();
}

/** A string with its `${{ }}` expressions replaced by their values, as the runner does. */
export function interpolate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, expr: string) => evaluate(expr.trim(), contexts).coerceString());
}

/** Whether a step's `if:` holds (absent: `success()`); the expression with or without `${{ }}`. */
export function condition(text: string | undefined, contexts: Contexts, failed = false): boolean {
  const expr = (text ?? 'success()').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  // GitHub: a condition without a status function is `success() && (…)`.
  const withStatus = /\b(success|always|failure|cancelled)\s*\(/.test(expr) ? expr : `success() && (${expr})`;
  return truthy(evaluate(withStatus, contexts, failed));
}
