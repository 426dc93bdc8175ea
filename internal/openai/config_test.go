package openai

import (
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		dim       int
		wantURL   string
		wantModel string
		wantKey   string
		wantSend  bool
		wantErr   string
	}{
		{
			name:      "nothing set uses OpenAI defaults",
			dim:       1536,
			wantURL:   "https://api.openai.com/v1/embeddings",
			wantModel: "text-embedding-3-small",
			wantSend:  true,
		},
		{
			name:      "Ollama without key",
			env:       map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "PGBRAIN_EMBED_MODEL": "nomic-embed-text"},
			dim:       768,
			wantURL:   "http://localhost:11434/v1/embeddings",
			wantModel: "nomic-embed-text",
		},
		{
			name:      "pgbrain base URL wins over OPENAI_BASE_URL",
			env:       map[string]string{"PGBRAIN_OPENAI_BASE_URL": "http://vllm:8000", "OPENAI_BASE_URL": "http://other:1", "OPENAI_API_KEY": " sk-1 "},
			dim:       1024,
			wantURL:   "http://vllm:8000/v1/embeddings",
			wantModel: "text-embedding-3-small",
			wantKey:   "sk-1",
			wantSend:  true,
		},
		{
			name:    "bad base URL",
			env:     map[string]string{"PGBRAIN_OPENAI_BASE_URL": "localhost:11434"},
			dim:     768,
			wantErr: "PGBRAIN_OPENAI_BASE_URL",
		},
		{
			name:    "dimension missing",
			dim:     0,
			wantErr: "pgbrain init --dim",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := fromEnv(func(k string) string { return tt.env[k] }, tt.dim)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("fromEnv error = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("fromEnv: %v", err)
			}
			c := mustNew(t, cfg)
			if c.URL() != tt.wantURL || c.Model() != tt.wantModel || c.Dim() != tt.dim {
				t.Errorf("URL/Model/Dim = %q/%q/%d, want %q/%q/%d", c.URL(), c.Model(), c.Dim(), tt.wantURL, tt.wantModel, tt.dim)
			}
			if cfg.APIKey != tt.wantKey {
				t.Errorf("APIKey = %q, want %q", cfg.APIKey, tt.wantKey)
			}
			if cfg.SendDimensions != tt.wantSend {
				t.Errorf("SendDimensions = %v, want %v", cfg.SendDimensions, tt.wantSend)
			}
		})
	}
}

// FromEnv itself must read the process environment.
func TestFromEnvReadsProcessEnvironment(t *testing.T) {
	t.Setenv("PGBRAIN_OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("PGBRAIN_EMBED_MODEL", "mxbai-embed-large")
	t.Setenv("OPENAI_API_KEY", "")
	cfg, err := FromEnv(1024)
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	if cfg.BaseURL != "http://127.0.0.1:9/v1/" || cfg.Model != "mxbai-embed-large" || cfg.APIKey != "" || cfg.Dim != 1024 {
		t.Errorf("FromEnv = %+v", cfg)
	}
}
