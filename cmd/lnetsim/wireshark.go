package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// pluginFile is the name the ping buffer dissector is installed under.
const pluginFile = "lnet_ping.lua"

// personalPluginDir is Wireshark's personal plugin folder on Linux and macOS
// ($HOME/.local/lib/wireshark/plugins; "About Wireshark > Folders" shows it), whose Lua files
// Wireshark and tshark load at start with no options.
func personalPluginDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for Wireshark's personal plugin folder: %w (write the plugin with --out DIR instead)", err)
	}
	return filepath.Join(home, ".local", "lib", "wireshark", "plugins"), nil
}

func newWiresharkPluginCmd() *cobra.Command {
	var install bool
	var dir string
	cmd := &cobra.Command{
		Use:   "wireshark-plugin",
		Short: "Print or install the Wireshark dissector for LNet ping and push buffers",
		Long: `Wireshark's LNet dissector hands an inline PUT payload to a dissector registered for
the PUT's portal and flags it Malformed when there is none, which is the case of LNet's
reserved portal 0: every discovery push (a node's ping buffer) in an o2iblnd capture, real or
from lnetsim run --pcap, is flagged. This Lua dissector decodes those buffers (NIDs, status,
features) and clears the flag.

With no flag it prints the plugin. With --install it writes it to Wireshark's personal plugin
folder (~/.local/lib/wireshark/plugins), from where wireshark and tshark load it with no
options; --out DIR writes it elsewhere (then: tshark -X lua_script:DIR/lnet_ping.lua ...).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !install && dir == "" {
				_, err := cmd.OutOrStdout().Write(pcap.PingDissector)
				return err
			}
			if dir == "" {
				d, err := personalPluginDir()
				if err != nil {
					return &exitError{code: exitRuntime, err: err}
				}
				dir = d
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			path := filepath.Join(dir, pluginFile)
			if err := atomicfile.WriteFile(path, pcap.PingDissector); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&install, "install", false, "write the plugin to Wireshark's personal plugin folder")
	cmd.Flags().StringVar(&dir, "out", "", "write the plugin to this directory instead")
	return cmd
}
