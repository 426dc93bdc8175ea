package evalrow_test

import (
	"fmt"

	"github.com/pgbrain/pgbrain/client/evalrow"
)

func ExampleParse() {
	line := []byte(`{"schema_version":1,"id":42,"tool_name":"query","query":"who wrote the runbook","retrieved_slugs":["ops/runbook"],"retrieved_chunk_ids":[7],"source_ids":["default"],"expand_enabled":false,"detail":null,"detail_resolved":"low","vector_enabled":true,"expansion_applied":false,"latency_ms":8.25,"remote":false,"job_id":null,"subagent_id":null,"created_at":"2025-01-02T03:04:05.123456Z"}`)
	row, err := evalrow.Parse(line)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(row.ToolName, row.Query, row.RetrievedSlugs, row.Created().Year())
	// Output: query who wrote the runbook [ops/runbook] 2025
}
