// The fake LLM providers live in their own production library, where `caravel fake-model`
// reaches them; the tests keep importing them from here.
export * from '@caravel/fake-llm';
