//! A coding agent's side of `patchdeck mcp`: rmcp's own client, talking to the real binary
//! over its standard input and output, as Claude Code, Codex CLI or Gemini CLI would.

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use std::path::Path;

/// An MCP session with `patchdeck mcp --root ROOT ARGS...`, no configuration file read.
pub struct Agent {
    client: RunningService<RoleClient, ()>,
}

/// What a tool call answered: whether it failed, its text, its structured content.
#[derive(Debug)]
pub struct Answer {
    pub is_error: bool,
    pub text: String,
    pub structured: Value,
}

impl Agent {
    pub async fn start(root: &Path, args: &[&str]) -> Agent {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"));
        command
            .args(["--config", "none", "mcp", "--root"])
            .arg(root)
            .args(args)
            .env_remove("PATCHDECK_FAILPOINT");
        let transport = TokioChildProcess::new(command).expect("the binary starts");
        let client = ().serve(transport).await.expect("the server initializes");
        Agent { client }
    }

    pub async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.expect("tools/list")
    }

    /// Calls `tool` with `arguments` (a JSON object).
    pub async fn call(&self, tool: &'static str, arguments: Value) -> Answer {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object: {arguments}")
        };
        let result: CallToolResult = self
            .client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
            .await
            .expect("tools/call answers");
        let text = result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .unwrap_or_default();
        Answer {
            is_error: result.is_error == Some(true),
            text,
            structured: result.structured_content.unwrap_or(Value::Null),
        }
    }

    /// Ends the session: the server exits when its standard input closes.
    pub async fn stop(self) {
        self.client.cancel().await.expect("the session ends");
    }
}

impl Answer {
    /// Each change's outcome, in batch order.
    pub fn outcomes(&self) -> Vec<String> {
        self.structured["files"]
            .as_array()
            .unwrap_or_else(|| panic!("a write result: {self:#?}"))
            .iter()
            .flat_map(|f| f["changes"].as_array().unwrap())
            .map(|c| c["outcome"].as_str().unwrap().to_owned())
            .collect()
    }
}
