// ASP.NET Core minimal API on Kestrel answering the harness's plaintext and
// json scenarios, as `dotnet new web` writes a service. Logging is set by the
// matrix's variants through configuration (Logging__LogLevel__* variables).
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Server.Kestrel.Core;

var builder = WebApplication.CreateBuilder(args);
// The harness says where to listen in PORT (the official image's default is
// 8080) and, for a cell over TLS, where the run's certificate and key are
// (TLS_CERT_FILE, TLS_KEY_FILE: PEM). Over TLS Kestrel offers HTTP/2 and
// HTTP/1.1 through ALPN; in cleartext it speaks HTTP/1.1 (Kestrel serves
// HTTP/2 without TLS only on an Http2-only endpoint).
var port = int.Parse(Environment.GetEnvironmentVariable("PORT") ?? "8080");
var certFile = Environment.GetEnvironmentVariable("TLS_CERT_FILE");
builder.WebHost.ConfigureKestrel(kestrel => kestrel.ListenAnyIP(port, listen =>
{
    if (certFile is null)
    {
        listen.Protocols = HttpProtocols.Http1;
        return;
    }
    listen.Protocols = HttpProtocols.Http1AndHttp2;
    listen.UseHttps(X509Certificate2.CreateFromPemFile(certFile, Environment.GetEnvironmentVariable("TLS_KEY_FILE")));
}));
var app = builder.Build();

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");

app.MapGet("/plaintext", () => Results.Text("Hello, World!", "text/plain"));
app.MapGet("/json", () => new Message("Hello, World!"));

app.Run();

record Message(string message);
