//! A scriptable policy server on the loopback interface, for the HTTP hook
//! tests: it records every request it receives and counts the connections it
//! accepts, and answers each request with what the test's behaviour makes of
//! it. Dropping the server stops it, and every connection it holds.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

/// One request as the server received it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) method: String,
    /// The path and the query.
    pub(crate) path: String,
    /// Names in lower case, in the order received.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    /// The body read as JSON, when it is JSON.
    pub(crate) json: Option<Value>,
}

impl Received {
    /// The value of the header `name` (any case); `None` when it was not sent.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server sends back for one request.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: ReplyBody,
    delay: Duration,
}

#[derive(Debug, Clone)]
enum ReplyBody {
    /// Sent whole, with its `Content-Length`.
    Whole(Vec<u8>),
    /// `total` bytes of spaces in chunks of `chunk`, without a length
    /// (chunked transfer encoding), made as they are sent, `pause` apart.
    Streamed {
        total: usize,
        chunk: usize,
        pause: Duration,
    },
}

impl Reply {
    /// `200` with an empty body.
    pub(crate) fn empty() -> Self {
        Reply::text(200, "")
    }

    /// `200` with this JSON.
    pub(crate) fn json(value: Value) -> Self {
        Reply::text(200, &value.to_string()).with_header("content-type", "application/json")
    }

    /// `status` with this text.
    pub(crate) fn text(status: u16, text: &str) -> Self {
        Reply::bytes(status, text.as_bytes().to_vec())
    }

    /// `status` with this body.
    pub(crate) fn bytes(status: u16, body: Vec<u8>) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: ReplyBody::Whole(body),
            delay: Duration::ZERO,
        }
    }

    /// `200` with `total` bytes streamed in chunks of `chunk`, no length given.
    pub(crate) fn streamed(total: usize, chunk: usize) -> Self {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: ReplyBody::Streamed {
                total,
                chunk,
                pause: Duration::ZERO,
            },
            delay: Duration::ZERO,
        }
    }

    /// Waits `pause` before each chunk of a [streamed](Self::streamed) body
    /// (its headers go at once).
    pub(crate) fn paced(mut self, every: Duration) -> Self {
        if let ReplyBody::Streamed { pause, .. } = &mut self.body {
            *pause = every;
        }
        self
    }

    /// The same reply with another status.
    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// Adds a header.
    pub(crate) fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Answers only after `delay`.
    pub(crate) fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Behaviour = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

#[derive(Default)]
struct Seen {
    requests: Mutex<Vec<Received>>,
    connections: AtomicUsize,
}

/// A policy server on `127.0.0.1`; stops when dropped.
pub(crate) struct Server {
    addr: SocketAddr,
    seen: Arc<Seen>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The accept loop owns the connections' tasks (a `JoinSet`): they go too.
        self.task.abort();
    }
}

impl Server {
    /// Starts a server that answers every request with `behaviour(request)`.
    pub(crate) async fn start(
        behaviour: impl Fn(&Received) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Server::start_on("127.0.0.1:0", behaviour).await
    }

    /// The same, on `::1`.
    pub(crate) async fn start_v6(
        behaviour: impl Fn(&Received) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Server::start_on("[::1]:0", behaviour).await
    }

    async fn start_on(
        address: &str,
        behaviour: impl Fn(&Received) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(address).await.unwrap();
        let addr = listener.local_addr().unwrap();
        assert!(addr.ip().is_loopback());
        let seen = Arc::new(Seen::default());
        let behaviour: Behaviour = Arc::new(behaviour);
        let task = tokio::spawn(accept_loop(listener, seen.clone(), behaviour));
        Server { addr, seen, task }
    }

    /// A server that answers `200` with an empty body.
    pub(crate) async fn allowing() -> Self {
        Server::start(|_| Reply::empty()).await
    }

    /// Its port.
    pub(crate) fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port><path>` (`http://[::1]:<port><path>` on `::1`).
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request received so far, in order.
    pub(crate) fn requests(&self) -> Vec<Received> {
        self.seen.requests.lock().unwrap().clone()
    }

    /// How many connections it accepted.
    pub(crate) fn connections(&self) -> usize {
        self.seen.connections.load(Ordering::SeqCst)
    }
}

async fn accept_loop(listener: TcpListener, seen: Arc<Seen>, behaviour: Behaviour) {
    let mut connections = JoinSet::new();
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => continue,
        };
        seen.connections.fetch_add(1, Ordering::SeqCst);
        // Reap finished connections as we go.
        while connections.try_join_next().is_some() {}
        let seen = seen.clone();
        let behaviour = behaviour.clone();
        connections.spawn(async move {
            let service =
                hyper::service::service_fn(move |req| answer(req, seen.clone(), behaviour.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    req: Request<Incoming>,
    seen: Arc<Seen>,
    behaviour: Behaviour,
) -> Result<Response<UnsyncBoxBody<Bytes, Infallible>>, hyper::Error> {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let headers = req
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = req.into_body().collect().await?.to_bytes().to_vec();
    let received = Received {
        method,
        path,
        headers,
        json: serde_json::from_slice(&body).ok(),
        body,
    };
    // Recorded before the reply is made, and before any delay.
    seen.requests.lock().unwrap().push(received.clone());
    let reply = behaviour(&received);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let body = match reply.body {
        ReplyBody::Whole(bytes) => Full::new(Bytes::from(bytes)).boxed_unsync(),
        ReplyBody::Streamed {
            total,
            chunk,
            pause,
        } => {
            let chunks = total.div_ceil(chunk);
            let stream = futures::stream::iter(0..chunks).then(move |i| async move {
                if !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
                let len = chunk.min(total - i * chunk);
                Ok::<_, Infallible>(Frame::data(Bytes::from(vec![b' '; len])))
            });
            StreamBody::new(stream).boxed_unsync()
        }
    };
    let mut response = Response::builder().status(reply.status);
    for (name, value) in &reply.headers {
        response = response.header(name, value);
    }
    Ok(response.body(body).unwrap())
}
