//! A coding agent's side of `patchdeck mcp`: rmcp's own client, talking to the real binary
//! over its standard input and output, as Claude Code, Codex CLI or Gemini CLI would.

use rmcp::model::{
    CallToolRequestParams, CallToolResult, NumberOrString, ProgressNotificationParam,
    ProgressToken, RequestMetaObject, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// An MCP session with `patchdeck mcp --root ROOT ARGS...`, no configuration file read.
pub struct Agent {
    client: RunningService<RoleClient, Recorder>,
}

/// The client's handler: it keeps the message of every progress notification it hears.
#[derive(Clone, Default)]
pub struct Recorder {
    pub progress: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let message = params.message.unwrap_or_default();
        self.progress.lock().unwrap().push(message);
    }
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
        Agent::start_with(root, args, &[]).await
    }

    /// [`Agent::start`] with `env` set for the server (`XDG_RUNTIME_DIR`, where it looks for
    /// the workspace's gate).
    pub async fn start_with(root: &Path, args: &[&str], env: &[(&str, &Path)]) -> Agent {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_patchdeck"));
        command
            .args(["--config", "none", "mcp", "--root"])
            .arg(root)
            .args(args)
            .env_remove("PATCHDECK_FAILPOINT");
        for (name, value) in env {
            command.env(name, value);
        }
        let transport = TokioChildProcess::new(command).expect("the binary starts");
        let client = Recorder::default()
            .serve(transport)
            .await
            .expect("the server initializes");
        Agent { client }
    }

    pub async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.expect("tools/list")
    }

    /// Calls `tool` with `arguments` (a JSON object).
    pub async fn call(&self, tool: &'static str, arguments: Value) -> Answer {
        self.call_with(tool, arguments, None).await
    }

    /// [`Agent::call`], asking for progress notifications under `token` when there is one.
    pub async fn call_with(
        &self,
        tool: &'static str,
        arguments: Value,
        token: Option<&str>,
    ) -> Answer {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object: {arguments}")
        };
        let mut params = CallToolRequestParams::new(tool).with_arguments(arguments);
        if let Some(token) = token {
            let mut meta = RequestMetaObject::new();
            meta.set_progress_token(ProgressToken(NumberOrString::String(token.into())));
            params.meta = Some(meta);
        }
        let result: CallToolResult = self
            .client
            .call_tool(params)
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

    /// The messages of the progress notifications heard so far.
    pub fn progress(&self) -> Vec<String> {
        self.client.service().progress.lock().unwrap().clone()
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
