import Hummingbird

/// Answers each request in a child task of its connection's task.
///
/// A task keeps the memory its deepest call made for its async frames until the task ends
/// (the Swift runtime's task allocator frees whole slabs only then). A connection's task lasts
/// as long as the connection, so a kept-alive connection held the frames of the whole
/// middleware chain of its first request: 44 KB per idle connection after one `GET /health`,
/// against 12 KB for one that sent nothing (`Benchmarks/LiveMap/idle_connections.py`). In a
/// child task those frames go when the answer is made; the connection keeps only its own,
/// shallow ones, and a live-map viewer (whose body is written by the connection's task after
/// the chain returned) too. The child inherits the task's priority, task-local values and
/// cancellation.
struct RequestTaskResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context: Sendable {
    typealias Context = Wrapped.Context
    let wrapped: Wrapped

    @Sendable func respond(to request: Request, context: Context) async throws -> Response {
        let wrapped = self.wrapped
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await wrapped.respond(to: request, context: context) }
            // One child, which either answers or throws.
            return try await group.next()!
        }
    }
}
