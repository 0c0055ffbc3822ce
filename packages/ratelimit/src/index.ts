export { checkWindow, type WindowCheck, type WindowResult } from "./window.ts";
