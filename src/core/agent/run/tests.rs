use super::*;
use crate::core::agent::options::RunRequest;
use crate::core::agent::process::tests::running;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use tokio::runtime::Handle;

/// Keeps receipts (the consumer is "behind") until told to let go.
#[derive(Default)]
struct SlowConsumer {
    holding: AtomicBool,
    batches: Mutex<Vec<Vec<Output>>>,
    /// The end of a step each batch carried, by batch.
    steps: Mutex<Vec<Option<RunStep>>>,
    receipts: Mutex<Vec<Receipt>>,
}

impl OutputSink for SlowConsumer {
    fn deliver(&self, batch: Vec<Output>, step: Option<RunStep>, receipt: Receipt) -> bool {
        self.batches.lock().unwrap().push(batch);
        self.steps.lock().unwrap().push(step);
        if self.holding.load(Ordering::SeqCst) {
            self.receipts.lock().unwrap().push(receipt);
        }
        true
    }
}

/// Starts a run whose consumer keeps every receipt (it is behind) until told to let go.
fn start_behind(options: RunOptions) -> (Arc<SlowConsumer>, RunHandle) {
    let consumer = Arc::new(SlowConsumer::default());
    consumer.holding.store(true, Ordering::SeqCst);
    let ctx = RunContext {
        runtime: Handle::current(),
        owner: 0,
    };
    let run = start_run(options, consumer.clone(), ctx);
    (consumer, run)
}

fn delta_line(text: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s1","timestamp_ms":1}}"#
    )
}

fn paced_agent(dir: &std::path::Path, name: &str, body: &str) -> RunOptions {
    std::fs::create_dir_all(dir).unwrap();
    let agent = dir.join(name);
    std::fs::write(&agent, format!("#!/bin/sh\ncat > /dev/null\n{body}")).unwrap();
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    RunRequest {
        prompt: "hi".into(),
        model: "auto".into(),
        workspace: dir.to_string_lossy().into_owned(),
        executable: Some(agent.to_string_lossy().into_owned()),
        ..RunRequest::default()
    }
    .validate()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_result_waits_until_every_batch_is_consumed() {
    let dir = std::env::temp_dir().join(format!("ocn-run-settle-{}", std::process::id()));
    let body = format!(
        "echo '{}'\necho '{}'\n",
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"Auto"}"#,
        delta_line("hello")
    );
    let options = paced_agent(&dir, "quick-agent.sh", &body);
    let (consumer, run) = start_behind(options);

    // The agent is done quickly and every batch (the text, then the closing outputs) is in
    // the consumer's hands, but not consumed: no result yet.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let last_is_finish = consumer
            .batches
            .lock()
            .unwrap()
            .iter()
            .flatten()
            .last()
            .is_some_and(|o| matches!(o, Output::Part(p) if p["type"] == "finish"));
        if last_is_finish {
            break;
        }
        assert!(Instant::now() < deadline, "the closing outputs never came");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(tokio::time::timeout(Duration::from_millis(300), run.wait())
        .await
        .is_err());

    consumer.receipts.lock().unwrap().clear();
    let result = tokio::time::timeout(Duration::from_secs(5), run.wait())
        .await
        .unwrap();
    assert_eq!(result.exit_code, Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_pauses_while_the_consumer_is_behind() {
    let dir = std::env::temp_dir().join(format!("ocn-run-{}", std::process::id()));
    let mut body = String::from(
        "echo '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\",\"model\":\"Auto\"}'\n",
    );
    for i in 0..30 {
        // one line per write, 10 ms apart: one read, one batch each
        body.push_str(&format!(
            "echo '{}'\nsleep 0.01\n",
            delta_line(&format!("t{i} "))
        ));
    }
    body.push_str(
        "echo '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s1\"}'\n",
    );
    let options = paced_agent(&dir, "paced-agent.sh", &body);
    let (consumer, run) = start_behind(options);

    let deadline = Instant::now() + Duration::from_secs(20);
    while consumer.batches.lock().unwrap().len() < MAX_BATCHES_IN_FLIGHT {
        assert!(Instant::now() < deadline, "the first batches never came");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The agent would have written everything by now; nothing more arrives while every
    // place in the queue is taken.
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        consumer.batches.lock().unwrap().len(),
        MAX_BATCHES_IN_FLIGHT
    );

    consumer.holding.store(false, Ordering::SeqCst);
    consumer.receipts.lock().unwrap().clear();
    let result = run.wait().await;
    assert_eq!(result.error, None);
    assert_eq!(result.session_id.as_deref(), Some("s1"));

    let text: String = consumer
        .batches
        .lock()
        .unwrap()
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Part(p) if p["type"] == "text-delta" => p["delta"].as_str().map(str::to_owned),
            _ => None,
        })
        .collect();
    let expected: String = (0..30).map(|i| format!("t{i} ")).collect();
    assert_eq!(text, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

async fn gone_within_30s(pids: &[u32]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while pids.iter().any(|&pid| running(pid)) {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

fn read_pids(file: &std::path::Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect()
}

/// An agent that leaves `sleep 300` behind (holding stdout, as a plain `&` does) and writes
/// its own pid and the sleeper's to `pids`, then `ending` decides how the run ends.
fn leaving_agent(
    dir: &std::path::Path,
    name: &str,
    ending: &str,
    timeout: Option<Duration>,
) -> RunOptions {
    let pids = dir.join(format!("{name}.pids"));
    let body = format!(
        "sleep 300 &\necho \"$$ $!\" > '{}'\necho '{}'\necho '{}'\n{ending}\n",
        pids.display(),
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"Auto"}"#,
        delta_line("hello"),
    );
    let options = paced_agent(dir, name, &body);
    RunRequest {
        timeout,
        ..(*options).clone()
    }
    .validate()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whatever_the_agent_left_running_is_stopped_however_the_run_ends() {
    let dir = std::env::temp_dir().join(format!("ocn-run-leftovers-{}", std::process::id()));
    let overall = Some(Duration::from_millis(500));
    let cases = [
        ("success", "exit 0", None),
        ("failure", "echo 'Error: boom' >&2; exit 1", None),
        ("timeout", "exec sleep 300", overall),
        ("cancel", "exec sleep 300", None),
    ];
    for (name, ending, timeout) in cases {
        let options = leaving_agent(&dir, &format!("{name}.sh"), ending, timeout);
        let (consumer, run) = start_behind(options);
        consumer.holding.store(false, Ordering::SeqCst);
        let pids_file = dir.join(format!("{name}.sh.pids"));
        let deadline = Instant::now() + Duration::from_secs(30);
        while read_pids(&pids_file).len() < 2 {
            assert!(Instant::now() < deadline, "{name}: the agent never started");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let pids = read_pids(&pids_file);
        if name == "cancel" {
            run.cancel();
        }
        let result = run.wait().await;
        assert_eq!(result.cancelled, name == "cancel", "{name}: {result:?}");
        assert!(gone_within_30s(&pids).await, "{name}: {pids:?} still run");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_batch_tells_how_the_run_ended() {
    let dir = std::env::temp_dir().join(format!("ocn-run-steps-{}", std::process::id()));
    let init = r#"{"type":"system","subtype":"init","session_id":"s1","model":"Auto"}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"hello","session_id":"s1","usage":{"inputTokens":7,"outputTokens":2}}"#;
    let answered = format!(
        "echo '{init}'\necho '{}'\necho '{result}'\n",
        delta_line("hello")
    );
    let failed = "echo 'Error: Authentication required.' >&2\nexit 1\n";
    /// (agent, what it prints, reason, answered, error code, input tokens)
    type Case<'a> = (
        &'a str,
        &'a str,
        StepReason,
        bool,
        Option<&'a str>,
        Option<u64>,
    );
    let table: [Case<'_>; 2] = [
        (
            "answering-agent.sh",
            &answered,
            StepReason::Stop,
            true,
            None,
            Some(7),
        ),
        (
            "failing-agent.sh",
            failed,
            StepReason::Error,
            false,
            Some("E_AUTH"),
            None,
        ),
    ];
    for (name, body, reason, was_answered, code, input_tokens) in table {
        let (consumer, run) = start_behind(paced_agent(&dir, name, body));
        consumer.holding.store(false, Ordering::SeqCst);
        consumer.receipts.lock().unwrap().clear();
        let outcome = tokio::time::timeout(Duration::from_secs(20), run.wait())
            .await
            .unwrap();
        let steps = consumer.steps.lock().unwrap().clone();
        let (last, earlier) = steps.split_last().expect("a batch");
        assert!(
            earlier.iter().all(Option::is_none),
            "{name}: only the last batch ends a step"
        );
        let last = last
            .clone()
            .expect("the last batch tells how the run ended");
        assert_eq!(
            (last.reason, last.answered),
            (reason, was_answered),
            "{name}"
        );
        let last_code = last.error.as_ref().map(|e| e.code().as_str());
        assert_eq!(last_code, code, "{name}");
        assert_eq!(last.error, outcome.error, "{name}: as the result has it");
        assert_eq!(
            last.usage.and_then(|u| u.input_tokens),
            input_tokens,
            "{name}"
        );
        assert!(last.tool_calls.is_empty(), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
