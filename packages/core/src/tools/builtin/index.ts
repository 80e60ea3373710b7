import { askUserTool } from './ask-user-tool.js';
import { bashTool } from './bash-tool.js';
import { editFileTool, listDirTool, readFileTool, writeFileTool } from './file-tools.js';
import { httpFetchTool } from './http-fetch-tool.js';

export { askUserTool, bashTool, editFileTool, httpFetchTool, listDirTool, readFileTool, writeFileTool };

/** Every built-in tool. */
export const builtinTools = [
  readFileTool,
  listDirTool,
  writeFileTool,
  editFileTool,
  bashTool,
  httpFetchTool,
  askUserTool,
];
