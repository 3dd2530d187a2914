"""/metrics read by Prometheus' own text parser (prometheus-client), as a scraper would."""
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def test_metrics_parse_with_prometheus_parser(server, api):
    api.locations()
    with urllib.request.urlopen(server + "/metrics", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    requests = families["onthemap_http_requests"]
    assert requests.type == "counter"
    assert any(sample.labels.get("family") == "student_locations" and sample.labels.get("status") == "200"
               for sample in requests.samples)
    latency = families["onthemap_http_request_duration_seconds"]
    assert latency.type == "histogram"
    buckets = [s for s in latency.samples if s.name.endswith("_bucket") and s.labels["family"] == "student_locations"]
    assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value >= 1
    assert "onthemap_list_cache_misses" in families
