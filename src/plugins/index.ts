export { loadPlugins, type Plugin, type PluginConfig } from "./load-plugins.js";
