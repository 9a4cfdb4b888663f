/** SteVe's REST side: the client, the command engine and the result table. */
export { SteveRest, SteveRestError, type OcppOperationResponse, type OcppTagForm, type OcppTagView, type RestSettings } from "./client";
export { SteveCommands, pendingStartKey, type PendingStart, type SteveCommand, type Submitted } from "./commands";
export { failureResult, resultOf } from "./results";
