// NoSymbolPlugin.cpp - a shared library in the plugin folder that is not a dpk plugin at all.
extern "C" __attribute__((visibility("default"))) int not_a_dpk_plugin() { return 42; }
