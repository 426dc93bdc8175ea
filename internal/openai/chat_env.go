package openai

// ChatFromEnvFunc is ChatFromEnv reading the variables through getenv, for
// callers that resolve several models from one environment.
func ChatFromEnvFunc(getenv func(string) string) (ChatConfig, error) { return chatFromEnv(getenv) }
