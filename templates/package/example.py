import json

from {{ module }} import SessionNotification, decode_client_notification, negotiate, roundtrip, to_json

# Decode a value by its schema type name and encode it back.
block = roundtrip("ContentBlock", {"type": "text", "text": "hello"})
print(f"ContentBlock: {json.dumps(block)}")

# Decode the params of a notification the client receives, by method.
params = {"sessionId": "s-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}}
notification = decode_client_notification("session/update", params)
if isinstance(notification, SessionNotification):
    print(f"session/update: {json.dumps(to_json(notification)['update'])}")

# Negotiate from one initialize exchange, then check what may be sent.
request = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}
response = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
negotiated = negotiate(request, response)
print(f"client handles fs/read_text_file: {json.dumps(negotiated.client_handles('fs/read_text_file'))}")
print(f"agent handles session/load: {json.dumps(negotiated.agent_handles('session/load'))}")
prompt = {"sessionId": "s-1", "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}
refused = negotiated.check_outgoing("session/prompt", prompt)
if refused is not None:
    print(f"refused session/prompt at: {json.dumps(refused.pointer)}")
