//! `patchdeck mcp`: a Model Context Protocol server over standard input and output, through
//! which a coding agent reads the files of one workspace and writes batches to them.
//!
//! Like the reviewer, it is a client of the core: a write is loaded, verified, planned and
//! committed by the same calls `patchdeck apply` makes ([`write`]), and answered with the
//! TUL-002 response ([`response`]). Nobody reviews a write yet, so every write follows the
//! unattended policy ([`Unattended`]): write nothing, or write every change that verifies.
//! The protocol is rmcp's (the official SDK), on a tokio runtime of one thread; the core's
//! calls, which block, run on tokio's blocking threads. This module and its dependencies are
//! behind the `mcp` feature: the core builds without an async runtime.

pub mod link;
mod read;
pub mod response;
mod schema;
mod write;

pub use read::{FileRead, ReadRequest};
pub use response::{Outcome, WriteResult};
pub use write::{Submitted, Unattended};

use crate::error::Error;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_type;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// How the server was started.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The workspace root, as given (the workspace resolves it once a call).
    pub root: PathBuf,
    pub unattended: Unattended,
    /// Stage written files in git (the configuration file's `stage`).
    pub stage: bool,
    /// The patch-tool calls' token limit (the configuration file's `max_tokens`).
    pub max_tokens: Option<usize>,
}

/// Serves one workspace on standard input and output until the client closes them.
pub fn serve(settings: Settings) -> Result<(), Error> {
    let io = |what: &str, cause: std::io::Error| Error::Io {
        what: what.to_owned(),
        cause,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| io("starting the MCP server", e))?;
    let served = runtime.block_on(async {
        let running = Server::new(settings)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| io("starting the MCP session", std::io::Error::other(e)))?;
        running
            .waiting()
            .await
            .map_err(|e| io("serving MCP", std::io::Error::other(e)))?;
        Ok(())
    });
    // A read of standard input cannot be cancelled: the runtime is not kept waiting for one.
    runtime.shutdown_background();
    served
}

/// What the server tells a client about itself as it connects.
const INSTRUCTIONS: &str = "patchdeck writes model-written patches to this workspace \
atomically (every accepted change of a batch, or none) and durably, checking each against the \
file on disk first. Read a file with workspace_read_file (numbered lines, its SHA-256 and line \
count), then write with workspace_write_patch (a TUL-002 batch), apply_patch (a Codex \
envelope) or submit_patch (any format as text). Each result says what became of every change \
(applied, already_applied, conflict, invalid, not_reviewed...), with what is on disk for a \
change that did not fit.";

/// The server: one workspace, four tools.
#[derive(Clone)]
pub struct Server {
    settings: Arc<Settings>,
    tool_router: ToolRouter<Server>,
}

#[tool_router]
impl Server {
    pub fn new(settings: Settings) -> Server {
        Server {
            settings: Arc::new(settings),
            tool_router: Server::tool_router(),
        }
    }

    #[tool(
        name = "workspace_read_file",
        description = "Read a file of the workspace by its docPath (its path under the root): its lines, numbered, the SHA-256 of the whole file (a batch's originalSha256) and its line count. startLine and endLine (from 1, inclusive) read part of it.",
        annotations(read_only_hint = true),
        output_schema = schema_for_type::<FileRead>()
    )]
    async fn workspace_read_file(
        &self,
        Parameters(request): Parameters<ReadRequest>,
    ) -> CallToolResult {
        let root = self.settings.root.clone();
        let read = blocking(move || read::read(&root, request)).await;
        answer(read.map(|read| (read.to_text(), read)))
    }

    #[tool(
        name = "workspace_write_patch",
        description = "Write a TUL-002 batch: for each file, its docPath, the SHA-256 of the content the changes were planned on, and whole-line insert/replace/delete changes with the lines they expect. Every change is checked against the file on disk; the result gives the batchId, each filePatchId and changeId with your keys, and each change's outcome.",
        input_schema = schema::tul002_batch(),
        output_schema = schema_for_type::<WriteResult>()
    )]
    async fn workspace_write_patch(
        &self,
        Parameters(batch): Parameters<JsonObject>,
    ) -> CallToolResult {
        let text = serde_json::Value::Object(batch).to_string();
        self.write("workspace_write_patch", text, Some("tul002"))
            .await
    }

    #[tool(
        name = "apply_patch",
        description = "Write a patch in Codex's envelope: {\"input\": \"*** Begin Patch\\n*** Update File: path\\n@@ ...\\n*** End Patch\"}. Each change is found in the file on disk; the result says what became of each.",
        output_schema = schema_for_type::<WriteResult>()
    )]
    async fn apply_patch(
        &self,
        Parameters(envelope): Parameters<schema::CodexEnvelope>,
    ) -> CallToolResult {
        self.write("apply_patch", envelope.input, Some("codex"))
            .await
    }

    #[tool(
        name = "submit_patch",
        description = "Write a patch in any format patchdeck reads, as text: a unified diff or git patch, Aider SEARCH/REPLACE blocks, a Codex envelope, a TUL-002 batch, a chat answer with fenced patches. The format is detected unless named. The result says what became of each change.",
        output_schema = schema_for_type::<WriteResult>()
    )]
    async fn submit_patch(
        &self,
        Parameters(submitted): Parameters<schema::SubmittedPatch>,
    ) -> CallToolResult {
        let format = submitted.format.as_deref();
        self.write("submit_patch", submitted.patch.clone(), format)
            .await
    }
}

impl Server {
    /// A write call: the batch through the core on a blocking thread, answered.
    async fn write(
        &self,
        source: &'static str,
        text: String,
        format: Option<&str>,
    ) -> CallToolResult {
        let settings = Arc::clone(&self.settings);
        let submitted = Submitted {
            source,
            text,
            format: format.map(str::to_owned),
        };
        let written = blocking(move || write::write(&settings, submitted)).await;
        answer(written.map(|result| (result.to_text(), result)))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(INSTRUCTIONS);
        info.server_info = Implementation::new("patchdeck", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// Runs a core call on tokio's blocking threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(Error::Io {
            what: "the tool call".to_owned(),
            cause: std::io::Error::other(e.to_string()),
        })
    })
}

/// A tool's result: its text for the model, then the same as structured content; an error is
/// a failed result whose text is what the command line says of it.
fn answer<T: Serialize>(result: Result<(String, T), Error>) -> CallToolResult {
    match result {
        Ok((text, value)) => {
            let value = serde_json::to_value(value).expect("a result serialises");
            let mut result = CallToolResult::structured(value);
            result.content.insert(0, ContentBlock::text(text));
            result
        }
        Err(error) => {
            let mut text = format!("patchdeck: error: {error}");
            if let Some(hint) = error.hint() {
                text.push_str(&format!("\nhint: {hint}"));
            }
            CallToolResult::error(vec![ContentBlock::text(text)])
        }
    }
}
