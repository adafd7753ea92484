/**
 * A scripted model for the AI SDK tests: the SDK's own MockLanguageModelV4, whose each step is a function of the
 * prompt it receives (so a step can use what an earlier tool returned, as a real model would).
 */
import { MockLanguageModelV4 } from 'ai/test';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
export type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

export function callTool(toolName: string, input: unknown, toolCallId = `call-${toolName}`): GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage: USAGE,
    warnings: [],
  };
}

export function answer(text: string): GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] };
}

/** The output of the latest tool result in the prompt, as the model reads it (JSON value, or error text). */
export function lastToolOutput(prompt: Prompt): unknown {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'json' || output.type === 'error-json') return output.value;
      if (output.type === 'text' || output.type === 'error-text') return output.value;
    }
  }
  throw new Error('no tool result in the prompt');
}

/** A model that plays `steps` in order, one per call, each given the prompt of that call. */
export function scriptedModel(steps: Array<(prompt: Prompt) => GenerateResult>): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const next = steps[step++];
      if (!next) throw new Error(`the script has ${steps.length} steps; call ${step} was not expected`);
      return next(prompt);
    },
  });
}
