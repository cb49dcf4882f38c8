// Problem responses of the playground route leave out the request payload.
export { PLAYGROUND_CHAT_PATH } from './playground.controller';
