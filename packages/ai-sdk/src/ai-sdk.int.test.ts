import { aiSdkCases } from './__fixtures__/ai-sdk-cases.js';

// The top of the peer range: AI SDK 7, deciding with `toolApproval` (F56, F61).
aiSdkCases(7);
