import { describe, expect, it } from 'vitest';
import { longrunningWatches } from '../../../../local/control-plane/extra-apiserver';

// As kube-apiserver v1.36 writes the gauge (labels in alphabetical order).
const METRICS = `# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.
# TYPE apiserver_longrunning_requests gauge
apiserver_longrunning_requests{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="WATCH",version="v1"} 3
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 2
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="WATCH",version="v1"} 1
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="resource",subresource="log",verb="CONNECT",version="v1"} 4
apiserver_longrunning_requests{component="apiserver",group="resource.k8s.io",resource="resourceslices",scope="cluster",subresource="",verb="WATCH",version="v1"} 0
apiserver_request_total{code="200",component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 9
`;

describe('longrunningWatches', () => {
  it('sums the open WATCH series of one resource, whatever their scope, and nothing else', () => {
    expect(longrunningWatches(METRICS, 'pods')).toBe(3);
    expect(longrunningWatches(METRICS, 'nodes')).toBe(3);
    expect(longrunningWatches(METRICS, 'resourceslices')).toBe(0);
    expect(longrunningWatches(METRICS, 'configmaps')).toBe(0);
  });
});
