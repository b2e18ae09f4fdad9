package otel

import "go.opentelemetry.io/otel/attribute"

// The attribute keys of the GenAI semantic conventions this package writes
// (status: Development), as the conventions name them today. They are
// spelled out here rather than taken from a semconv package of the Go SDK,
// whose releases trail the conventions (cache, reasoning and
// time-to-first-chunk keys are newer than its latest GenAI package).
const (
	keyOperation        = attribute.Key("gen_ai.operation.name")
	keyProvider         = attribute.Key("gen_ai.provider.name")
	keyRequestModel     = attribute.Key("gen_ai.request.model")
	keyMaxTokens        = attribute.Key("gen_ai.request.max_tokens")
	keyTemperature      = attribute.Key("gen_ai.request.temperature")
	keyTopP             = attribute.Key("gen_ai.request.top_p")
	keyStopSequences    = attribute.Key("gen_ai.request.stop_sequences")
	keySeed             = attribute.Key("gen_ai.request.seed")
	keyStream           = attribute.Key("gen_ai.request.stream")
	keyFinishReasons    = attribute.Key("gen_ai.response.finish_reasons")
	keyResponseModel    = attribute.Key("gen_ai.response.model")
	keyTimeToFirstChunk = attribute.Key("gen_ai.response.time_to_first_chunk")
	keyInputTokens      = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens     = attribute.Key("gen_ai.usage.output_tokens")
	keyCacheReadTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyCacheWriteTokens = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	keyReasoningTokens  = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	keyTokenType        = attribute.Key("gen_ai.token.type")
	keyAgentName        = attribute.Key("gen_ai.agent.name")
	keyToolName         = attribute.Key("gen_ai.tool.name")
	keyToolDescription  = attribute.Key("gen_ai.tool.description")
	keyToolType         = attribute.Key("gen_ai.tool.type")
	keyToolCallID       = attribute.Key("gen_ai.tool.call.id")
	keyToolArguments    = attribute.Key("gen_ai.tool.call.arguments")
	keyToolResult       = attribute.Key("gen_ai.tool.call.result")
	keyInputMessages    = attribute.Key("gen_ai.input.messages")
	keyOutputMessages   = attribute.Key("gen_ai.output.messages")
	keySystem           = attribute.Key("gen_ai.system_instructions")
	keyErrorType        = attribute.Key("error.type")
	keyServerAddress    = attribute.Key("server.address")
	keyServerPort       = attribute.Key("server.port")
)

// The events of an invoke_agent span and their attributes: airlock's own,
// since the conventions define none for approvals, pauses or parallel
// tool calls. A call is named by the conventions' gen_ai.tool.call.id and
// gen_ai.tool.name.
const (
	eventApproved      = "airlock.tool.approved"
	eventDenied        = "airlock.tool.denied"
	eventPaused        = "airlock.agent.paused"
	eventParallelTools = "airlock.tools.parallel"

	keyDenyReason     = attribute.Key("airlock.approval.reason")
	keyPendingCallIDs = attribute.Key("airlock.approval.pending_call_ids")
	keyTurn           = attribute.Key("airlock.turn")
	keyBatchSize      = attribute.Key("airlock.tools.batch_size")
	keyMostRunning    = attribute.Key("airlock.tools.max_running")
)

// The operation names.
const (
	opChat            = "chat"
	opGenerateContent = "generate_content" // the conventions' name for Gemini's generateContent
	opExecuteTool     = "execute_tool"
	opInvokeAgent     = "invoke_agent"
)

// The well-known gen_ai.provider.name values for the dialects' own providers.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGemini    = "gcp.gemini"
)

// The metric names, units and the bucket boundaries the conventions advise.
const (
	metricTokenUsage       = "gen_ai.client.token.usage"
	metricDuration         = "gen_ai.client.operation.duration"
	metricTimeToFirstChunk = "gen_ai.client.operation.time_to_first_chunk"
)

var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	chunkBuckets    = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
)
