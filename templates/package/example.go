package main

import (
	"encoding/json"
	"errors"
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

	// Negotiate from one initialize exchange, then check what may be sent.
	request := `{"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}}`
	response := `{"protocolVersion": 1, "agentCapabilities": {"loadSession": true}}`
	negotiated, err := acp.NegotiateJSON([]byte(request), []byte(response))
	if err != nil {
		panic(err)
	}
	fmt.Printf("client handles fs/read_text_file: %t\n", negotiated.ClientHandles("fs/read_text_file"))
	fmt.Printf("agent handles session/load: %t\n", negotiated.AgentHandles("session/load"))
	prompt, err := acp.Parse([]byte(`{"sessionId": "s-1", "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}`))
	if err != nil {
		panic(err)
	}
	var refused *acp.CapabilityError
	if errors.As(negotiated.CheckOutgoing("session/prompt", prompt), &refused) {
		pointer, err := json.Marshal(refused.Pointer)
		if err != nil {
			panic(err)
		}
		fmt.Printf("refused session/prompt at: %s\n", pointer)
	}
}
