// A FastCGI responder with AsyncFastCGI.NET (study 003), answering
// /plaintext behind the nginx front, configured as the library's README shows.
var port = int.Parse(Environment.GetEnvironmentVariable("FASTCGI_PORT") ?? "9000");

var client = new AsyncFastCGI.Client();
client.setPort(port);
client.setBindAddress("0.0.0.0");
client.setMaxConcurrentRequests(256);
client.setMaxInputSize(8388608);
client.setConnectionTimeout(2000);
client.requestHandler = Handle;

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");
await client.startAsync();

static async Task Handle(AsyncFastCGI.Input input, AsyncFastCGI.Output output)
{
    output.setHttpStatus(200);
    output.setHeader("Content-Type", "text/plain; charset=utf-8");
    await output.writeAsync("Hello, World!");
    await output.endAsync();
}
