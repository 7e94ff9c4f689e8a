//! The bridge's HTTP listener: loopback only, one secret path, a bearer token on every request,
//! connections capped and timed ([`super::connections`]); what passes is MCP's Streamable HTTP,
//! served by rmcp.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{header, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::connections::{Connections, Limits};
use super::held::HeldCalls;
use super::mcp::{BridgeServer, Catalog};
use super::parked::Parked;

/// After the stop, how long open connections may take to finish their responses.
const LAST_RESPONSES: std::time::Duration = std::time::Duration::from_millis(500);

/// Where the server answers and what it requires.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub path: String,
    pub token: String,
}

impl Endpoint {
    /// Why `request` is refused, if it is.
    fn refusal<B>(&self, request: &Request<B>) -> Option<StatusCode> {
        if request.uri().path() != self.path {
            return Some(StatusCode::NOT_FOUND);
        }
        let authorized = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .is_some_and(|token| same_secret(token.trim(), &self.token));
        (!authorized).then_some(StatusCode::UNAUTHORIZED)
    }
}

/// Compares every byte, so the time taken does not tell how much of a guess was right.
fn same_secret(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

fn refused(status: StatusCode) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from_static(b"")).boxed());
    *response.status_mut() = status;
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// Listen on `127.0.0.1` at a free port (returned) until `stopped` turns true.
pub async fn serve(
    endpoint: Endpoint,
    catalog: Arc<Catalog>,
    calls: Arc<HeldCalls>,
    parked: Arc<Parked>,
    mut stopped: watch::Receiver<bool>,
    limits: Limits,
) -> std::io::Result<u16> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
    let port = listener.local_addr()?.port();
    let mcp = StreamableHttpService::new(
        move || {
            Ok(BridgeServer {
                catalog: Arc::clone(&catalog),
                calls: Arc::clone(&calls),
                parked: Arc::clone(&parked),
            })
        },
        Arc::new(LocalSessionManager::default()),
        // rmcp's own DNS-rebinding check, on top of the token: only loopback names.
        StreamableHttpServerConfig::default().with_allowed_hosts(["127.0.0.1", "localhost"]),
    );
    let endpoint = Arc::new(endpoint);
    let connections = Connections::new(limits.max);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                _ = stopped.wait_for(|stop| *stop) => break,
                accepted = listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else { continue };
            // At the cap with every connection being answered, the new one is closed at once.
            let Some(slot) = connections.admit() else {
                continue;
            };
            let mcp = mcp.clone();
            let endpoint = Arc::clone(&endpoint);
            let mut stopped = stopped.clone();
            let answered = Arc::clone(&slot);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let mcp = mcp.clone();
                    let endpoint = Arc::clone(&endpoint);
                    let slot = Arc::clone(&answered);
                    async move {
                        if let Some(status) = endpoint.refusal(&request) {
                            tracing::debug!(%status, path = request.uri().path(), "tool bridge refused a request");
                            return Ok::<_, Infallible>(refused(status));
                        }
                        // The connection's clock stands still until the response's body is done.
                        let answering = slot.answering();
                        let response = mcp.handle(request).await;
                        Ok(response.map(|body| {
                            body.map_frame(move |frame| {
                                let _answering = &answering;
                                frame
                            })
                            .boxed()
                        }))
                    }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                tokio::pin!(connection);
                tokio::select! {
                    _ = connection.as_mut() => return,
                    () = slot.closing(limits.idle) => return,
                    _ = stopped.wait_for(|stop| *stop) => {}
                }
                // Responses in flight (a held call's answer) may finish; a stream that would
                // stay open (MCP's event stream) is cut after a moment.
                connection.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(LAST_RESPONSES, connection).await;
            });
        }
    });
    Ok(port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn requests_table() {
        let endpoint = Endpoint {
            path: "/mcp/secret".into(),
            token: "t0ken".into(),
        };
        let table = [
            ("/mcp/secret", Some("Bearer t0ken"), None),
            ("/mcp/secret", Some("Bearer t0ken "), None),
            (
                "/mcp/secret",
                Some("Bearer t0ke"),
                Some(StatusCode::UNAUTHORIZED),
            ),
            (
                "/mcp/secret",
                Some("Basic t0ken"),
                Some(StatusCode::UNAUTHORIZED),
            ),
            ("/mcp/secret", None, Some(StatusCode::UNAUTHORIZED)),
            (
                "/mcp/other",
                Some("Bearer t0ken"),
                Some(StatusCode::NOT_FOUND),
            ),
            ("/", None, Some(StatusCode::NOT_FOUND)),
        ];
        for (path, auth, expected) in table {
            let mut request = Request::builder().uri(path);
            if let Some(auth) = auth {
                request = request.header(header::AUTHORIZATION, auth);
            }
            let request = request.body(()).unwrap();
            assert_eq!(endpoint.refusal(&request), expected, "{path} {auth:?}");
        }
    }

    /// Whether the server closed `stream` (a read ends), waiting at most a moment.
    async fn closed(stream: &mut tokio::net::TcpStream) -> bool {
        use tokio::io::AsyncReadExt;
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_millis(50), stream.read(&mut byte));
        matches!(read.await, Ok(Ok(0) | Err(_)))
    }

    #[tokio::test]
    async fn silent_connections_are_capped_and_timed_out_and_answered_ones_never_cut() {
        use tokio::io::AsyncWriteExt;
        use tokio::net::TcpStream;
        let (stop, stopped) = watch::channel(false);
        let endpoint = Endpoint {
            path: "/mcp/p".into(),
            token: "t0ken".into(),
        };
        let limits = Limits {
            max: 4,
            idle: Duration::from_millis(1_000),
        };
        let catalog = Arc::new(Catalog::new(Vec::new()));
        let (calls, parked) = (Arc::new(HeldCalls::new()), Arc::new(Parked::default()));
        let port = serve(endpoint, catalog, calls, parked, stopped, limits)
            .await
            .unwrap();
        let connect = || TcpStream::connect(("127.0.0.1", port));
        // Authenticated requests whose bodies are still coming: being answered.
        let mut answered = Vec::new();
        for _ in 0..2 {
            let mut stream = connect().await.unwrap();
            let head = "POST /mcp/p HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t0ken\r\n\
                Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                Content-Length: 100\r\n\r\n{";
            stream.write_all(head.as_bytes()).await.unwrap();
            answered.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut silent = Vec::new();
        for _ in 0..10 {
            silent.push(connect().await.unwrap());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut open = Vec::new();
        for stream in &mut silent {
            open.push(!closed(stream).await);
        }
        let newest_two = [vec![false; 8], vec![true; 2]].concat();
        assert_eq!(open, newest_two, "the oldest silent ones made room");
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        for stream in &mut silent[8..] {
            assert!(closed(stream).await, "closed after the idle limit");
        }
        for stream in &mut answered {
            assert!(
                !closed(stream).await,
                "a request being answered is never cut"
            );
        }
        stop.send_replace(true);
    }
}
