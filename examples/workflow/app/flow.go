// Package app is the workflow example server: an MCP server on the
// official Go SDK whose prompt plan_trip starts a four-step workflow that
// runs as a task (see tasks/workflow and adapters/gosdk/gosdkflow).
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptasks/mcptasks/adapters/gosdk"
	"github.com/mcptasks/mcptasks/adapters/gosdk/gosdkflow"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/workflow"
)

// Names of the example's prompt and tools.
const (
	FlowTrip   = "plan_trip"
	ToolSky    = "forecast"
	ToolHotels = "find_hotels"
	ToolChoose = "choose_hotel"
	ToolBook   = "book_hotel"
	ToolWait   = "wait" // a task tool, the conformance suite's sleep fixture
)

// Trip is the example workflow: two server steps, a step for the client
// (the user picks a hotel), and a server step that needs the client's
// choice.
var Trip = workflow.Workflow{
	Name:        FlowTrip,
	Description: "Plans a stay in a city: checks the weather, finds hotels, lets the user choose one and books it.",
	Arguments:   []workflow.Argument{{Name: "city", Description: "the city to visit", Required: true}},
	Steps: []workflow.Step{
		{Name: "weather", Tool: ToolSky, Args: json.RawMessage(`{"city":"{{args.city}}"}`),
			Guidance: "The server checks the weather."},
		{Name: "hotels", Tool: ToolHotels, Args: json.RawMessage(`{"city":"{{args.city}}","sky":"{{steps.weather.output.sky}}"}`),
			Guidance: "The server finds hotels suited to the weather."},
		{Name: "choose", Tool: ToolChoose, Mode: workflow.ModeClient, Args: json.RawMessage(`{"options":"{{steps.hotels.output.names}}"}`),
			Guidance: "Ask the user which of the options they prefer, then call choose_hotel with {\"hotel\": <their pick>} (options may stay as given)."},
		{Name: "book", Tool: ToolBook, Args: json.RawMessage(`{"city":"{{args.city}}","hotel":"{{steps.choose.output.hotel}}"}`),
			Guidance: "The server books the chosen hotel."},
	},
}

// Server is the SDK server with tasks and the workflow installed.
type Server struct {
	MCP     *mcp.Server
	Adapter *gosdk.Adapter
	Flows   *gosdkflow.Flows
	log     *slog.Logger
}

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

type skyOut struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
}

type hotelsArgs struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
}

type hotelsOut struct {
	Names []string `json:"names"`
}

type chooseArgs struct {
	Hotel   string   `json:"hotel" jsonschema:"the hotel the user chose"`
	Options []string `json:"options,omitempty" jsonschema:"the options offered"`
}

type chooseOut struct {
	Hotel string `json:"hotel"`
}

type bookArgs struct {
	City  string `json:"city"`
	Hotel string `json:"hotel"`
}

type bookOut struct {
	Confirmation string `json:"confirmation"`
	City         string `json:"city"`
	Hotel        string `json:"hotel"`
}

// New builds the example server on engine.
func New(engine *tasks.Engine, log *slog.Logger) (*Server, error) {
	impl := &mcp.Implementation{Name: "mcptasks-workflow-example", Version: "0.1.0"}
	s := mcp.NewServer(impl, &mcp.ServerOptions{Logger: log})
	a, err := gosdk.Install(s, engine, &gosdk.Options{Logger: log,
		Core: []protocol.Option{protocol.WithImplementation(protocol.Implementation{Name: impl.Name, Version: impl.Version})}})
	if err != nil {
		return nil, err
	}
	runner := workflow.NewRunner(engine.Store(), workflow.WithLogger(log))
	if err := runner.Add(Trip); err != nil {
		return nil, err
	}
	// Install serves the workflows added so far as prompts; the tools
	// may follow (server steps look them up when they run).
	f, err := gosdkflow.Install(a, runner)
	if err != nil {
		return nil, err
	}
	errs := []error{
		gosdkflow.AddTool(f, &mcp.Tool{Name: ToolSky, Description: "Tells the weather expected in a city."},
			func(_ context.Context, in cityArgs) (skyOut, error) {
				if strings.TrimSpace(in.City) == "" {
					return skyOut{}, errors.New("city is empty")
				}
				return skyOut{City: in.City, Sky: pick(in.City, "sunny", "rainy", "cloudy")}, nil
			}),
		gosdkflow.AddTool(f, &mcp.Tool{Name: ToolHotels, Description: "Finds hotels in a city suited to the weather."},
			func(_ context.Context, in hotelsArgs) (hotelsOut, error) {
				if in.Sky == "rainy" {
					return hotelsOut{Names: []string{in.City + " Spa", in.City + " Museum Inn"}}, nil
				}
				return hotelsOut{Names: []string{in.City + " Garden Hotel", in.City + " Riverside"}}, nil
			}),
		gosdkflow.AddTool(f, &mcp.Tool{Name: ToolChoose, Description: "Records the hotel the user chose."},
			func(_ context.Context, in chooseArgs) (chooseOut, error) {
				if strings.TrimSpace(in.Hotel) == "" {
					return chooseOut{}, errors.New("hotel is empty")
				}
				if len(in.Options) > 0 && !contains(in.Options, in.Hotel) {
					return chooseOut{}, fmt.Errorf("%q is not one of the options %v", in.Hotel, in.Options)
				}
				return chooseOut{Hotel: in.Hotel}, nil
			}),
		gosdkflow.AddTool(f, &mcp.Tool{Name: ToolBook, Description: "Books a hotel."},
			func(_ context.Context, in bookArgs) (bookOut, error) {
				if in.Hotel == "" {
					return bookOut{}, errors.New("no hotel to book")
				}
				return bookOut{Confirmation: fmt.Sprintf("BK-%06d", hash(in.City+"/"+in.Hotel)%1000000), City: in.City, Hotel: in.Hotel}, nil
			}),
		addFixtures(a),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Server{MCP: s, Adapter: a, Flows: f, log: log}, nil
}

func hash(s string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return h.Sum32()
}

func pick(s string, options ...string) string { return options[int(hash(s))%len(options)] }

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
