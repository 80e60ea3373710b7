/**
 * @packageDocumentation
 * A local Slack for tests (`@interlock/chat-slack/testing`): the Web API methods the
 * connector calls and a Socket Mode WebSocket, plus signed requests as Slack sends them.
 */
export {
  FakeSlack,
  buttonPayload,
  editSubmission,
  formPayload,
  isApprovalMessage,
  messageEvent,
  postSigned,
  type SlackCall,
} from './fake-slack.js';
