import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { listOrgs } from '../api/orgs';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLoad } from '../components/use-load';
import { OrgDetail } from './org-detail';
import { UsersAwaitingApproval } from './users-panel';

/** The organizations the caller belongs to (all of them for an administrator), each opened on demand; for administrators, users awaiting approval. */
export function OrgsPage({ api }: { api: ApiClient }) {
  const orgs = useLoad(() => listOrgs(api), 'orgs');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section aria-labelledby="orgs-title">
      <h1 id="orgs-title">Organizations</h1>
      {orgs.error ? <ErrorBox error={orgs.error} onRetry={orgs.reload} /> : null}
      {!orgs.data && orgs.loading && <Loading what="organizations" />}
      {orgs.data && orgs.data.length === 0 && <Empty title="You belong to no organization.">An administrator creates organizations with `svc orgs create`.</Empty>}
      {orgs.data && orgs.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Owner</th>
                <th scope="col">Members</th>
              </tr>
            </thead>
            <tbody>
              {orgs.data.map((org) => (
                <tr key={org.id}>
                  <td data-label="Organization">
                    <button type="button" class="link" aria-expanded={open === org.id} onClick={() => setOpen(open === org.id ? null : org.id)}>
                      {org.id}
                    </button>
                    {open === org.id && <OrgDetail api={api} orgId={org.id} />}
                  </td>
                  <td data-label="Owner">{org.owner}</td>
                  <td data-label="Members">{org.members}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <UsersAwaitingApproval api={api} />
    </section>
  );
}
