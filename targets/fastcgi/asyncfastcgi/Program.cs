// A FastCGI responder with AsyncFastCGI.NET (study 003), answering
// /plaintext behind the nginx front, configured as the library's example
// program does.
var port = int.Parse(Environment.GetEnvironmentVariable("PORT") ?? "9000");

var client = new AsyncFastCGI.Client();
client.SetPort(port);
client.SetBindAddress("0.0.0.0");
client.SetMaxConcurrentRequests(512);
client.SetConnectionTimeout(10000);
client.SetMaxHeaderSize(16384);
client.RequestHandler = Handle;

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");
await client.StartAsync();

static async Task Handle(AsyncFastCGI.Input input, AsyncFastCGI.Output output)
{
    output.SetHttpStatus(200);
    output.SetHeader("Content-Type", "text/plain; charset=utf-8");
    await output.WriteAsync("Hello, World!");
    await output.EndAsync();
}
