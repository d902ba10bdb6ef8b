package main

import (
	"encoding/json"
	"fmt"

	acp {{ module }}
)

func main() {
	// Decode a value by its schema type name and encode it back.
	block, err := acp.Roundtrip("ContentBlock", []byte(`{"type": "text", "text": "hello"}`))
	if err != nil {
		panic(err)
	}
	fmt.Printf("ContentBlock: %s\n", block)

	// Decode the params of a notification into its type, and encode it back.
	params := `{"sessionId": "s-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}}`
	var notification acp.SessionNotification
	if err := json.Unmarshal([]byte(params), &notification); err != nil {
		panic(err)
	}
	update, err := json.Marshal(notification.Update)
	if err != nil {
		panic(err)
	}
	fmt.Printf("session/update: %s\n", update)
}
