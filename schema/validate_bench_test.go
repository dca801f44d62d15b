package schema

import "testing"

func BenchmarkValidateTask(b *testing.B) {
	v := NewValidator()
	raw := []byte(taskJSON)
	if err := v.Validate("Task", raw); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := v.Validate("Task", raw); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkValidateCallToolResult(b *testing.B) {
	v := NewValidator()
	raw := []byte(`{"content":[{"type":"text","text":"hello"},{"type":"image","mimeType":"image/png","data":"aGk="}],"structuredContent":{"n":1}}`)
	if err := v.Validate("CallToolResult", raw); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate("CallToolResult", raw); err != nil {
			b.Fatal(err)
		}
	}
}
